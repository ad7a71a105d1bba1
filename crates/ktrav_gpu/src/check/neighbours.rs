//! Who else is on the card: NVML's count of the processes with a compute
//! context on the device, read before and after a timing run, so the report
//! can say when other processes shared the GPU just before or just after it
//! timed (NVML is asked at those two moments, not during the run). The timing
//! lock ([`super::lock`]) keeps other checks' timings away, not their
//! correctness runs or anyone else's work.
//!
//! NVML is the driver's own library (`libnvidia-ml.so.1`), opened at run
//! time; only the count is read (`nvmlDeviceGetComputeRunningProcesses`
//! asked with room for none), so no structure whose layout changes between
//! releases is involved. Where NVML is missing or cannot see the processes
//! (a container often cannot), nothing is said.

use libloading::os::unix::{Library, Symbol};
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::sync::OnceLock;

/// `NVML_ERROR_INSUFFICIENT_SIZE`: more processes than the room given.
const INSUFFICIENT_SIZE: c_int = 7;

struct Nvml {
    lib: Library,
}

fn nvml() -> Option<&'static Nvml> {
    static NVML: OnceLock<Option<Nvml>> = OnceLock::new();
    NVML.get_or_init(|| {
        // SAFETY: loading the driver's NVML runs its initialisers only.
        let lib = unsafe { Library::new("libnvidia-ml.so.1") }.ok()?;
        // SAFETY: nvmlInit_v2 takes no arguments and returns a status.
        let init: Symbol<unsafe extern "C" fn() -> c_int> = unsafe { lib.get(b"nvmlInit_v2\0") }.ok()?;
        (unsafe { init() } == 0).then_some(())?;
        Some(Nvml { lib })
    })
    .as_ref()
}

/// The number of processes with a compute context on the card at `pci`
/// (`0000:19:00`, as [`crate::runner::Gpu::pci_address`] gives it), this
/// one included; `None` when NVML cannot say.
pub fn processes_on(pci: &str) -> Option<u32> {
    let nvml = nvml()?;
    let bus_id = CString::new(format!("{pci}.0")).ok()?;
    type ByBus = unsafe extern "C" fn(*const c_char, *mut *mut c_void) -> c_int;
    type Running = unsafe extern "C" fn(*mut c_void, *mut c_uint, *mut c_void) -> c_int;
    // SAFETY: the symbols have these signatures in every NVML since CUDA 11.
    let by_bus: Symbol<ByBus> = unsafe { nvml.lib.get(b"nvmlDeviceGetHandleByPciBusId_v2\0") }.ok()?;
    let running: Symbol<Running> = unsafe { nvml.lib.get(b"nvmlDeviceGetComputeRunningProcesses_v3\0") }.ok()?;
    let mut device: *mut c_void = std::ptr::null_mut();
    // SAFETY: a NUL-terminated bus id and a pointer to write the handle to.
    if unsafe { by_bus(bus_id.as_ptr(), &mut device) } != 0 {
        return None;
    }
    let mut count: c_uint = 0;
    // SAFETY: room for no entries: NVML only writes the count.
    match unsafe { running(device, &mut count, std::ptr::null_mut()) } {
        0 | INSUFFICIENT_SIZE => Some(count),
        _ => None,
    }
}

/// The note for a timing run that saw `before` and `after` processes on
/// the card, `ours` of which belong to the check itself (the worker, and
/// the check that started it, which keeps its own context open), if others
/// were there.
pub fn note(before: Option<u32>, after: Option<u32>, ours: u32) -> Option<String> {
    let others = before.into_iter().chain(after).max()?.saturating_sub(ours);
    (others > 0).then(|| {
        format!(
            "{others} other process{} had this GPU open just before or just after it timed (a class's correctness runs, say): the times may be slower than on an idle card",
            if others == 1 { "" } else { "es" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_counts_the_others_at_the_busiest_reading() {
        assert_eq!(note(Some(2), Some(2), 2), None);
        assert_eq!(note(None, None, 2), None);
        assert!(note(Some(4), Some(3), 2)
            .unwrap()
            .starts_with("2 other processes had this GPU open just before or just after it timed"));
        assert!(note(None, Some(3), 2).unwrap().starts_with("1 other process had this GPU open"));
        assert_eq!(note(Some(1), None, 2), None);
        // Without a driver, or with no such card, NVML has nothing to say.
        assert_eq!(processes_on("ffff:ff:1f"), None);
    }
}
