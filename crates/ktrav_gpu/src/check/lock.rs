//! One timing at a time on a device. Checks that share a GPU (a class on
//! one server, a grader with several workers) run their shapes side by side,
//! which changes no verdict, but a timing run beside another one measures
//! the neighbour as much as the kernel. So a timing run holds an exclusive
//! lock on a file named after the card's PCI address, in the system's
//! temporary folder, for as long as it times; the others wait their turn.
//! The lock is the kernel's `flock`: it goes with the process, however the
//! process ends.

use anyhow::{Context, Result};
use std::fs::{File, OpenOptions, Permissions};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// The lock file of the card at `pci` (`0000:19:00`).
pub fn path(pci: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ktrav-gpu-{}.lock", pci.replace(':', "-")))
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

/// Waits for, then holds, the lock of the card at `pci`. Checks of
/// different users queue on one file, as long as they share the temporary
/// folder (`TMPDIR` unset or the same).
pub fn acquire(pci: &str) -> Result<Held> {
    let path = path(pci);
    let file = open(&path).with_context(|| format!("cannot open the device's timing lock {}", path.display()))?;
    loop {
        // SAFETY: flock on a descriptor this function owns.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if r == 0 {
            return Ok(Held { _file: file });
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e).with_context(|| format!("cannot take the device's timing lock {}", path.display()));
        }
    }
}

/// Whether the lock of the card at `pci` is free now (for tests).
pub fn is_free(pci: &str) -> bool {
    let Ok(file) = open(&path(pci)) else {
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
        let pci = format!("test:{}:00", std::process::id());
        assert!(is_free(&pci));
        let held = acquire(&pci).unwrap();
        assert!(!is_free(&pci), "a second taker must wait while the first holds it");
        let waiter = std::thread::spawn({
            let pci = pci.clone();
            move || {
                let started = std::time::Instant::now();
                let _second = acquire(&pci).unwrap();
                started.elapsed()
            }
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(held);
        let waited = waiter.join().unwrap();
        assert!(waited >= std::time::Duration::from_millis(250), "the second took it after {waited:?}");
        assert!(is_free(&pci));
        let _ = std::fs::remove_file(path(&pci));
    }

    #[test]
    fn a_new_lock_file_is_open_to_every_user() {
        let pci = format!("test:{}:01", std::process::id());
        let _ = std::fs::remove_file(path(&pci));
        let held = acquire(&pci).unwrap();
        let mode = std::fs::metadata(path(&pci)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666, "created with mode {mode:o}");
        drop(held);
        let _ = std::fs::remove_file(path(&pci));
    }
}
