//! Turns on a device. Checks that share a GPU (a class on one server, a
//! grader with several workers) run their shapes side by side, which changes
//! no verdict, with two exceptions, each given a lock of its own:
//!
//! - a timing run beside another one measures the neighbour as much as the
//!   kernel ([`Lock::Timing`]);
//! - shapes that need a large part of the card's memory, run side by side,
//!   can leave one another too little of it ([`Lock::Memory`]).
//!
//! A lock is an exclusive `flock` on a file named after the card's PCI
//! address and the lock, in the system's temporary folder, held for as long
//! as the run; the others wait their turn. It goes with the process,
//! however the process ends.

use anyhow::{Context, Result};
use std::fs::{File, OpenOptions, Permissions};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// What a lock gives its holder a turn at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    /// Timing a kernel.
    Timing,
    /// Running a shape whose buffers take at least [`LARGE_BYTES`].
    Memory,
}

impl Lock {
    fn name(self) -> &'static str {
        match self {
            Lock::Timing => "timing",
            Lock::Memory => "memory",
        }
    }
}

/// The device memory from which a shape takes turns ([`Lock::Memory`]):
/// 4 GiB, so the ordinary shapes (a few hundred MB at most) run side by
/// side and those past 2^31 elements (tens of GB) one at a time.
pub const LARGE_BYTES: u64 = 4 << 30;

/// The file of `lock` on the card at `pci` (`0000:19:00`).
pub fn path(pci: &str, lock: Lock) -> PathBuf {
    let card = pci.replace(':', "-");
    match lock {
        Lock::Timing => std::env::temp_dir().join(format!("ktrav-gpu-{card}.lock")),
        other => std::env::temp_dir().join(format!("ktrav-gpu-{card}-{}.lock", other.name())),
    }
}

/// A held lock; dropping it lets the next timing run go.
#[derive(Debug)]
pub struct Held {
    _file: File,
}

/// Opens the lock file at `path`, creating it if no check has yet. A read
/// is all `flock` needs, so a file another user created opens whatever
/// its mode; one this check creates is made readable and writable by all
/// (the umask would otherwise narrow the mode it was created with).
fn open(path: &Path) -> std::io::Result<File> {
    match File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let file = OpenOptions::new().write(true).create(true).truncate(false).mode(0o666).open(path)?;
            file.set_permissions(Permissions::from_mode(0o666))?;
            Ok(file)
        }
        opened => opened,
    }
}

/// Waits for, then holds, `lock` of the card at `pci`. Checks of
/// different users queue on one file, as long as they share the temporary
/// folder (`TMPDIR` unset or the same).
pub fn acquire(pci: &str, lock: Lock) -> Result<Held> {
    let path = path(pci, lock);
    let what = lock.name();
    let file = open(&path).with_context(|| format!("cannot open the device's {what} lock {}", path.display()))?;
    loop {
        // SAFETY: flock on a descriptor this function owns.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if r == 0 {
            return Ok(Held { _file: file });
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e).with_context(|| format!("cannot take the device's {what} lock {}", path.display()));
        }
    }
}

/// Whether `lock` of the card at `pci` is free now (for tests).
pub fn is_free(pci: &str, lock: Lock) -> bool {
    let Ok(file) = open(&path(pci, lock)) else {
        return false;
    };
    // SAFETY: flock on a descriptor this function owns; released on drop.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_makes_the_next_wait_and_goes_with_its_holder() {
        for (n, lock) in [Lock::Timing, Lock::Memory].into_iter().enumerate() {
            let pci = format!("test:{}:0{n}", std::process::id());
            assert!(is_free(&pci, lock));
            let held = acquire(&pci, lock).unwrap();
            assert!(!is_free(&pci, lock), "a second taker must wait while the first holds it");
            let waiter = std::thread::spawn({
                let pci = pci.clone();
                move || {
                    let started = std::time::Instant::now();
                    let _second = acquire(&pci, lock).unwrap();
                    started.elapsed()
                }
            });
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(held);
            let waited = waiter.join().unwrap();
            assert!(waited >= std::time::Duration::from_millis(250), "the second took it after {waited:?}");
            assert!(is_free(&pci, lock));
            let _ = std::fs::remove_file(path(&pci, lock));
        }
    }

    /// A memory turn and a timing run on one card do not wait for each other.
    #[test]
    fn the_two_locks_are_apart() {
        let pci = format!("test:{}:02", std::process::id());
        let timing = acquire(&pci, Lock::Timing).unwrap();
        assert!(is_free(&pci, Lock::Memory));
        let memory = acquire(&pci, Lock::Memory).unwrap();
        drop((timing, memory));
        for lock in [Lock::Timing, Lock::Memory] {
            let _ = std::fs::remove_file(path(&pci, lock));
        }
    }

    #[test]
    fn a_new_lock_file_is_open_to_every_user() {
        let pci = format!("test:{}:03", std::process::id());
        let _ = std::fs::remove_file(path(&pci, Lock::Memory));
        let held = acquire(&pci, Lock::Memory).unwrap();
        let mode = std::fs::metadata(path(&pci, Lock::Memory)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666, "created with mode {mode:o}");
        drop(held);
        let _ = std::fs::remove_file(path(&pci, Lock::Memory));
    }
}
