//! Is there a GPU to launch on? A probe that never panics.
//!
//! cudarc loads `libcuda` lazily and panics if it is missing, so the probe
//! looks for the driver library first and also catches any panic from the
//! driver bindings. Every failure becomes one line of text that a chapter
//! prints before carrying on with its simulated results.

use crate::libs;
use cudarc::driver::{sys, CudaContext};
use ktrav::section::DISABLE_ENV;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Why there is no GPU (or no library) to use: one line, which a chapter
/// prints before carrying on with its simulated results. Callers tell it
/// apart from a failure on a GPU that exists.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);

/// What the book reports about the device it ran on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    pub compute_capability: (i32, i32),
    /// The driver's CUDA version as `cuDriverGetVersion` reports it (13000 = 13.0).
    pub driver_version: i32,
}

impl DeviceInfo {
    /// `NVIDIA H200, compute capability 9.0, driver CUDA 13.0`.
    pub fn describe(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!(
            "{}, compute capability {major}.{minor}, driver CUDA {}.{}",
            self.name,
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10
        )
    }
}

/// The outcome of looking for a GPU.
#[derive(Clone)]
pub enum Probe {
    Available { ctx: Arc<CudaContext>, info: DeviceInfo },
    Unavailable { reason: String },
}

/// Looks for device 0. Never panics.
pub fn probe() -> Probe {
    probe_unless(std::env::var_os(DISABLE_ENV).is_some())
}

pub(crate) fn probe_unless(disabled: bool) -> Probe {
    if disabled {
        return Probe::Unavailable { reason: format!("{DISABLE_ENV} is set") };
    }
    // The driver installs libcuda where the loader finds it; searching CUDA
    // toolkit folders would only find stubs.
    let driver = libs::load_from_loader_path("libcuda.so.1");
    // SAFETY: only tries to dlopen the driver library by its usual names.
    if !driver.found() || !unsafe { sys::is_culib_present() } {
        return Probe::Unavailable { reason: format!("no CUDA driver: {}", driver.describe()) };
    }
    match catch_unwind(AssertUnwindSafe(open_device)) {
        Ok(Ok(probe)) => probe,
        Ok(Err(reason)) => Probe::Unavailable { reason: format!("{reason:#}") },
        Err(_) => Probe::Unavailable { reason: "the CUDA driver could not be loaded".into() },
    }
}

fn open_device() -> anyhow::Result<Probe> {
    use anyhow::{bail, Context};
    let count = CudaContext::device_count().context("the CUDA driver did not start")?;
    if count < 1 {
        bail!("the CUDA driver reports no device");
    }
    let ctx = CudaContext::new(0).context("device 0 could not be opened")?;
    let name = ctx.name().context("reading the device's name")?;
    let compute_capability = ctx.compute_capability().context("reading the compute capability")?;
    let mut driver_version = 0;
    // SAFETY: cuDriverGetVersion writes one int; the driver is loaded.
    let status = unsafe { sys::cuDriverGetVersion(&mut driver_version) };
    if status != sys::CUresult::CUDA_SUCCESS {
        bail!("cuDriverGetVersion failed ({status:?})");
    }
    Ok(Probe::Available { ctx, info: DeviceInfo { name, compute_capability, driver_version } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_never_panics_and_explains_itself() {
        match probe() {
            Probe::Available { info, .. } => assert!(info.describe().contains("compute capability")),
            Probe::Unavailable { reason } => assert!(!reason.is_empty() && !reason.contains('\n')),
        }
    }

    #[test]
    fn disabling_variable_is_honoured() {
        match probe_unless(true) {
            Probe::Unavailable { reason } => assert_eq!(reason, format!("{DISABLE_ENV} is set")),
            Probe::Available { .. } => panic!("the probe ignored {DISABLE_ENV}"),
        }
    }
}
