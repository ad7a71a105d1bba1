//! The `// expect: <exercise>: <verdict>` lines of the exercise files: what
//! the checker must say about each starter and wrong kernel. The GPU suite
//! holds the checker to them, and the book's tests make sure every line in
//! `exercises/` means something and agrees with the simulator track.
//!
//! A verdict is one of:
//! * a kind of failure on the public battery ([`FailureKind`]: `wrong`,
//!   `unwritten`, `out of bounds`, ...), with `(a race ...)` or `(only on
//!   the shape past gridDim.y's limit)` after it where that applies;
//! * `passes without --large; fails with --large`;
//! * `passes every shape; fails its timing`: a kernel that does its work
//!   only on its first launch in a module, which every shape's fresh
//!   process shows right and the timing run's repeated launches do not;
//! * `passes without --sanitize; fails with --sanitize`: a stray access
//!   that lands in no guard word (a read past an input's end) and that only
//!   compute-sanitizer's memcheck, with every buffer its exact size, sees;
//! * `passes the public battery; fails the hidden battery`, optionally `as
//!   KIND`, or `... fails the hidden battery with --large`: a kernel only the
//!   hidden battery ([`super::hidden_battery`]) rejects.

use super::FailureKind;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};

/// The kind of failure `text` starts with, if any.
fn kind_at_start(text: &str) -> Option<FailureKind> {
    FailureKind::ALL.iter().copied().find(|k| text.starts_with(k.as_str()))
}

/// One `expect:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    /// The exercise id.
    pub exercise: String,
    /// The kind of failure the default battery must show; `None` when the
    /// kernel passes the default battery (it fails only with `--large`).
    pub kind: Option<FailureKind>,
    /// Fails only with `--large` (a 32-bit index that overflows).
    pub large_only: bool,
    /// A race: it may pass a run, so the suite repeats it.
    pub race: bool,
    /// Fails only on the shape past gridDim.y's limit.
    pub only_past_grid_y: bool,
    /// Passes the public battery and fails the hidden one
    /// ([`super::hidden_battery`]): `passes the public battery; fails the
    /// hidden battery`, optionally naming the kind, `... battery as wrong`.
    pub hidden_only: bool,
    /// The kind of failure the hidden battery must show, when named.
    pub hidden_kind: Option<FailureKind>,
    /// The hidden battery fails it only with `--large`: `passes the public
    /// battery; fails the hidden battery with --large` (a 32-bit unsigned
    /// index wraps past 2^32 elements, beyond the public `--large` shape).
    pub hidden_large: bool,
    /// Passes the public battery and fails it only under `--sanitize` (memcheck):
    /// `passes without --sanitize; fails with --sanitize`.
    pub sanitize_only: bool,
    /// Passes every shape and fails the timing run, which judges the output
    /// of every launch: `passes every shape; fails its timing`.
    pub timing_only: bool,
}

/// The verdict of a kernel that only the timing run rejects.
pub const TIMING_ONLY: &str = "passes every shape; fails its timing";

/// The verdict of a kernel that only memcheck rejects.
pub const SANITIZE_ONLY: &str = "passes without --sanitize; fails with --sanitize";

/// The start of an `expect:` verdict for a kernel only the hidden battery rejects.
pub const HIDDEN_ONLY: &str = "passes the public battery; fails the hidden battery";

/// Every `expect:` line of a file's text, or (in one line) why one is not
/// understood.
pub fn parse(text: &str) -> Result<Vec<Expect>> {
    text.lines()
        .filter_map(|l| l.strip_prefix("// expect: "))
        .map(|l| {
            let Some((id, rest)) = l.split_once(": ") else { bail!("no verdict in '{l}'") };
            let exercise = id.to_string();
            let none = Expect {
                exercise,
                kind: None,
                large_only: false,
                race: false,
                only_past_grid_y: false,
                hidden_only: false,
                hidden_kind: None,
                hidden_large: false,
                sanitize_only: false,
                timing_only: false,
            };
            if rest.starts_with(TIMING_ONLY) {
                return Ok(Expect { timing_only: true, ..none });
            }
            if rest.starts_with(SANITIZE_ONLY) {
                return Ok(Expect { sanitize_only: true, ..none });
            }
            if rest.starts_with("passes without --large; fails with --large") {
                return Ok(Expect { large_only: true, ..none });
            }
            if let Some(after) = rest.strip_prefix(HIDDEN_ONLY) {
                let after = after.trim();
                let (hidden_large, named) = match after.strip_prefix("with --large") {
                    Some(more) => (true, more.trim()),
                    None => (false, after),
                };
                let hidden_kind = match named.strip_prefix("as ") {
                    Some(k) => Some(kind_at_start(k).ok_or_else(|| anyhow!("unknown kind in '{l}'"))?),
                    None if named.is_empty() || named.starts_with('(') => None,
                    None => bail!("unknown verdict in '{l}'"),
                };
                return Ok(Expect {
                    hidden_only: true,
                    hidden_kind,
                    hidden_large,
                    race: rest.contains("a race"),
                    ..none
                });
            }
            let kind = kind_at_start(rest).ok_or_else(|| anyhow!("unknown verdict in '{l}'"))?;
            Ok(Expect {
                kind: Some(kind),
                race: rest.contains("a race"),
                only_past_grid_y: rest.contains("gridDim.y"),
                ..none
            })
        })
        .collect()
}

/// Every `.cu` file under `exercises/` (starters and `wrong/`), sorted,
/// with its chapter directory's name.
pub fn files(workspace: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for chapter in std::fs::read_dir(workspace.join("exercises"))? {
        let chapter = chapter?;
        let name = chapter.file_name().to_string_lossy().into_owned();
        for dir in [chapter.path(), chapter.path().join("wrong")] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for f in entries.flatten() {
                if f.path().extension().is_some_and(|e| e == "cu") {
                    out.push((name.clone(), f.path()));
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_into_what_they_promise() {
        let e = parse("// expect: transpose: wrong (a race: it may pass one run, so it is repeated)\n").unwrap();
        assert_eq!((e[0].kind, e[0].race, e[0].large_only), (Some(FailureKind::Wrong), true, false));
        let e = parse("// expect: guard: passes without --large; fails with --large").unwrap();
        assert_eq!((e[0].kind, e[0].large_only), (None, true));
        let e = parse("// expect: find-the-bug: unwritten (only on the shape past gridDim.y's limit)").unwrap();
        assert!(e[0].only_past_grid_y && !e[0].race);
        let e = parse("// expect: copy: passes without --sanitize; fails with --sanitize (memcheck sees the read)")
            .unwrap();
        assert!(e[0].sanitize_only && e[0].kind.is_none() && !e[0].large_only && !e[0].hidden_only);
        assert!(!parse("// expect: copy: wrong").unwrap()[0].sanitize_only);
        let e = parse("// expect: copy: passes every shape; fails its timing").unwrap();
        assert!(e[0].timing_only && !e[0].sanitize_only && e[0].kind.is_none());
        assert_eq!(parse("// expect: copy: fine").unwrap_err().to_string(), "unknown verdict in 'copy: fine'");
        assert_eq!(parse("// expect: copy").unwrap_err().to_string(), "no verdict in 'copy'");
        assert!(parse("no expect lines here").unwrap().is_empty());
        let e = parse(
            "// expect: col-major-add: passes the public battery; fails the hidden battery as wrong (rows past 2^16)",
        )
        .unwrap();
        assert!(e[0].hidden_only && !e[0].hidden_large && e[0].kind.is_none() && !e[0].large_only);
        assert_eq!(e[0].hidden_kind, Some(FailureKind::Wrong));
        let e = parse("// expect: guard: passes the public battery; fails the hidden battery with --large").unwrap();
        assert!(e[0].hidden_only && e[0].hidden_large && e[0].hidden_kind.is_none() && !e[0].large_only);
        let e = parse(
            "// expect: transpose: passes the public battery; fails the hidden battery with --large as unwritten",
        )
        .unwrap();
        assert_eq!((e[0].hidden_large, e[0].hidden_kind), (true, Some(FailureKind::Unwritten)));
        let e = parse("// expect: transpose: passes the public battery; fails the hidden battery").unwrap();
        assert!(e[0].hidden_only && e[0].hidden_kind.is_none());
        let bad = parse("// expect: copy: passes the public battery; fails the hidden battery as fine").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "unknown kind in 'copy: passes the public battery; fails the hidden battery as fine'"
        );
        assert!(parse("// expect: copy: passes the public battery; fails the hidden battery sometimes").is_err());
    }

    /// Every kind of failure a check reports may be named, on its own and
    /// after `as`, and reads back as itself.
    #[test]
    fn every_kind_may_be_named() {
        for &k in FailureKind::ALL {
            let e = parse(&format!("// expect: copy: {k} (a note)")).unwrap();
            assert_eq!(e[0].kind, Some(k));
            let e = parse(&format!("// expect: copy: {HIDDEN_ONLY} as {k}")).unwrap();
            assert_eq!((e[0].kind, e[0].hidden_kind), (None, Some(k)));
        }
    }
}
