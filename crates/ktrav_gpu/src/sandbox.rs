//! Defence in depth for compiling a student's file: NVRTC runs in a thread
//! that Landlock (the Linux kernel's unprivileged sandbox) lets read only
//! the folders NVRTC itself needs and write nothing.
//!
//! The checker already refuses any include it does not hand over in memory
//! (`ktrav::lab::includes`), so the compiler has no reason to open a file;
//! this makes it unable to. A Landlock restriction holds for the thread
//! that asks for it (and threads it starts) until the thread ends, so each
//! compilation gets a thread of its own. Where the kernel has no Landlock
//! (older than 5.13, or not enabled) the compilation runs unrestricted and
//! [`Status`] says so: that is not an error, and the allow-list still holds.

use landlock::{path_beneath_rules, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, ABI};
use std::path::{Path, PathBuf};

/// The newest Landlock interface asked for; an older kernel enforces what
/// it knows of it.
const ABI_ASKED: ABI = ABI::V5;

/// How far a compilation's thread was restricted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every file access outside the allowed folders is refused.
    Enforced,
    /// The kernel's Landlock is older: reading and writing files are
    /// restricted, some newer rights are not.
    Partial,
    /// Not restricted, and why (no Landlock in this kernel, say).
    Unavailable(String),
}

impl Status {
    /// Whether reading a file outside the allowed folders is refused.
    pub fn active(&self) -> bool {
        !matches!(self, Status::Unavailable(_))
    }

    /// One line for `doctor` and the record.
    pub fn describe(&self) -> String {
        match self {
            Status::Enforced => "active (Landlock): the compiler reads only its own library folders (and /proc/self) and writes nothing".into(),
            Status::Partial => "active (Landlock, an older interface): the compiler reads only its own library folders (and /proc/self) and writes nothing".into(),
            Status::Unavailable(why) => format!("not active ({why}); the include allow-list still holds"),
        }
    }
}

/// The folders a compilation may read: every folder a loaded NVRTC library
/// was mapped from (the compiler and its builtins), and the process's own
/// `/proc` entries.
pub fn readable() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        for line in maps.lines() {
            let Some(path) = line.split_whitespace().nth(5) else { continue };
            let path = Path::new(path);
            let named = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("libnvrtc"));
            if let (true, Some(dir)) = (named, path.parent()) {
                if !dirs.iter().any(|d| d == dir) {
                    dirs.push(dir.to_path_buf());
                }
            }
        }
    }
    dirs.push(PathBuf::from("/proc/self"));
    dirs
}

/// Restricts the calling thread, for good, to reading `dirs` and writing
/// nothing. Call it only in a thread made for the purpose.
pub fn restrict_this_thread(dirs: &[PathBuf]) -> Status {
    let attempt = || -> Result<RulesetStatus, landlock::RulesetError> {
        let status = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI_ASKED))?
            .create()?
            .add_rules(path_beneath_rules(dirs, AccessFs::from_read(ABI_ASKED)))?
            .restrict_self()?;
        Ok(status.ruleset)
    };
    match attempt() {
        Ok(RulesetStatus::FullyEnforced) => Status::Enforced,
        Ok(RulesetStatus::PartiallyEnforced) => Status::Partial,
        Ok(RulesetStatus::NotEnforced) => {
            Status::Unavailable("this kernel has no Landlock, or it is not enabled".into())
        }
        Err(e) => Status::Unavailable(format!("Landlock refused the restriction: {e}")),
    }
}

/// Runs `work` in a new thread restricted to reading `dirs`, and returns
/// what it returned with how far the restriction went. `None` when the
/// thread could not be started or `work` panicked.
pub fn run_restricted<T: Send>(dirs: &[PathBuf], work: impl FnOnce() -> T + Send) -> Option<(T, Status)> {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("ktrav-sealed-compile".into())
            .spawn_scoped(s, || {
                let status = restrict_this_thread(dirs);
                (work(), status)
            })
            .ok()?;
        handle.join().ok()
    })
}

/// Whether this machine can restrict a compilation, found by restricting a
/// throwaway thread: what `doctor` reports.
pub fn probe() -> Status {
    run_restricted(&readable(), || ()).map_or(Status::Unavailable("a thread could not be started".into()), |(_, s)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether this kernel offers Landlock at all.
    fn landlock_here() -> bool {
        probe().active()
    }

    #[test]
    fn a_restricted_thread_reads_only_what_it_was_given_and_writes_nothing() {
        if !landlock_here() {
            eprintln!("skipped: {}", probe().describe());
            return;
        }
        let d = std::env::temp_dir().join(format!("ktrav-sandbox-{}", std::process::id()));
        let (allowed, denied) = (d.join("allowed"), d.join("denied"));
        std::fs::create_dir_all(&allowed).unwrap();
        std::fs::create_dir_all(&denied).unwrap();
        std::fs::write(allowed.join("a.txt"), "a").unwrap();
        std::fs::write(denied.join("b.txt"), "b").unwrap();
        let (seen, status) = run_restricted(std::slice::from_ref(&allowed), || {
            (
                std::fs::read_to_string(allowed.join("a.txt")).ok(),
                std::fs::read_to_string(denied.join("b.txt")).ok(),
                std::fs::write(allowed.join("c.txt"), "c").is_ok(),
            )
        })
        .unwrap();
        assert!(status.active(), "{status:?}");
        assert_eq!(seen, (Some("a".to_string()), None, false));
        // The restriction ended with its thread.
        assert_eq!(std::fs::read_to_string(denied.join("b.txt")).unwrap(), "b");
        std::fs::remove_dir_all(d).unwrap();
        assert!(Status::Enforced.describe().starts_with("active"));
        assert!(Status::Unavailable("x".into()).describe().contains("allow-list still holds"));
    }
}
