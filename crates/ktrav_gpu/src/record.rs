//! Where a measurement was made: the [`Run`] that heads a record of
//! `ktrav::measured`, read from the open device, the driver and the build.

use crate::kernels;
use crate::runner::Gpu;
use ktrav::measured::Run;

/// The run on `gpu` now, made by `command`.
pub fn run_on(gpu: &Gpu, command: &str) -> Run {
    let info = &gpu.info;
    Run {
        card: info.name.clone(),
        compute_capability: format!("{}.{}", info.compute_capability.0, info.compute_capability.1),
        driver_cuda: format!("{}.{}", info.driver_version / 1000, (info.driver_version % 1000) / 10),
        driver: driver_release().unwrap_or_else(|| "unknown".into()),
        compiler: kernels::NVCC_VERSION.unwrap_or("no nvcc: kernels not embedded").to_string(),
        date: now_utc(),
        command: command.to_string(),
    }
}

/// The NVIDIA kernel module's release, from `/proc/driver/nvidia/version`.
fn driver_release() -> Option<String> {
    release_of(&std::fs::read_to_string("/proc/driver/nvidia/version").ok()?)
}

/// The release in the first line of `/proc/driver/nvidia/version`: the
/// first dotted number after `Module` (`NVIDIA UNIX x86_64 Kernel Module
/// 580.159.04 ...` or `NVIDIA UNIX Open Kernel Module for x86_64 580.159.04 ...`).
fn release_of(text: &str) -> Option<String> {
    let words: Vec<&str> = text.lines().next()?.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "Module")?;
    let dotted = |w: &&&str| w.contains('.') && w.chars().all(|c| c.is_ascii_digit() || c == '.');
    words[at + 1..].iter().find(dotted).map(|w| w.to_string())
}

/// The current time in UTC, to the second.
pub fn now_utc() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_release_is_read_from_either_module_line() {
        let open =
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U16)";
        assert_eq!(release_of(open).as_deref(), Some("580.159.04"));
        assert_eq!(
            release_of("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue").as_deref(),
            Some("535.54.03")
        );
        assert_eq!(release_of("no module here"), None);
        let now = now_utc();
        assert!(now.ends_with('Z') && now.len() == "2026-11-30T04:10:00Z".len(), "{now}");
    }
}
