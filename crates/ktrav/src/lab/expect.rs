//! The `// expect: <exercise>: <verdict>` lines of the exercise files: what
//! the checker must say about each starter and wrong kernel. The GPU suite
//! holds the checker to them, and the book's tests make sure every line in
//! `exercises/` means something and agrees with the simulator track.

use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};

/// The kinds of failure an `expect:` line can name (see `Verdict::kinds`).
pub const KINDS: [&str; 6] = ["wrong", "unwritten", "out of bounds", "launch error", "crashed", "did not finish"];

/// One `expect:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    /// The exercise id.
    pub exercise: String,
    /// The kind of failure the default battery must show; `None` when the
    /// kernel passes the default battery (it fails only with `--large`).
    pub kind: Option<&'static str>,
    /// Fails only with `--large` (a 32-bit index that overflows).
    pub large_only: bool,
    /// A race: it may pass a run, so the suite repeats it.
    pub race: bool,
    /// Fails only on the shape past gridDim.y's limit.
    pub only_past_grid_y: bool,
}

/// Every `expect:` line of a file's text, or (in one line) why one is not
/// understood.
pub fn parse(text: &str) -> Result<Vec<Expect>> {
    text.lines()
        .filter_map(|l| l.strip_prefix("// expect: "))
        .map(|l| {
            let Some((id, rest)) = l.split_once(": ") else { bail!("no verdict in '{l}'") };
            let exercise = id.to_string();
            if rest.starts_with("passes without --large; fails with --large") {
                return Ok(Expect { exercise, kind: None, large_only: true, race: false, only_past_grid_y: false });
            }
            let kind = KINDS.iter().find(|k| rest.starts_with(*k)).ok_or_else(|| anyhow!("unknown verdict in '{l}'"))?;
            Ok(Expect {
                exercise,
                kind: Some(kind),
                large_only: false,
                race: rest.contains("a race"),
                only_past_grid_y: rest.contains("gridDim.y"),
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
        assert_eq!((e[0].kind, e[0].race, e[0].large_only), (Some("wrong"), true, false));
        let e = parse("// expect: guard: passes without --large; fails with --large").unwrap();
        assert_eq!((e[0].kind, e[0].large_only), (None, true));
        let e = parse("// expect: find-the-bug: unwritten (only on the shape past gridDim.y's limit)").unwrap();
        assert!(e[0].only_past_grid_y && !e[0].race);
        assert_eq!(parse("// expect: copy: fine").unwrap_err().to_string(), "unknown verdict in 'copy: fine'");
        assert_eq!(parse("// expect: copy").unwrap_err().to_string(), "no verdict in 'copy'");
        assert!(parse("no expect lines here").unwrap().is_empty());
    }
}
