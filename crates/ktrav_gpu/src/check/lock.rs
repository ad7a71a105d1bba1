//! One timing at a time on a device. Checks that share a GPU (a class on
//! one server, a grader with several workers) run their shapes side by side,
//! which changes no verdict, but a timing run beside another one measures
//! the neighbour as much as the kernel. So a timing run holds an exclusive
//! lock on a file named after the card's PCI address, in the system's
//! temporary folder, for as long as it times; the others wait their turn.
//! The lock is the kernel's `flock`: it goes with the process, however the
//! process ends.

use anyhow::{Context, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;

/// The lock file of the card at `pci` (`0000:19:00`).
pub fn path(pci: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ktrav-gpu-{}.lock", pci.replace(':', "-")))
}

/// A held lock; dropping it lets the next timing run go.
#[derive(Debug)]
pub struct Held {
    _file: File,
}

/// Waits for, then holds, the lock of the card at `pci`. Any user may
/// create and take it (mode 666), so checks of different students queue
/// on one file.
pub fn acquire(pci: &str) -> Result<Held> {
    let path = path(pci);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .open(&path)
        .with_context(|| format!("cannot open the device's timing lock {}", path.display()))?;
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
    let Ok(file) = OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(0o666).open(path(pci))
    else {
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
}
