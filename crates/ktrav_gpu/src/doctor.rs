//! `doctor`: the first command to run on a lab machine. It says what the
//! machine has (GPU, driver, NVRTC, cuBLAS), whether the embedded kernels
//! load on it, which path the chapters' kernels will take, and so what
//! will run: the chapters' GPU sections, K.5's cuBLAS checks, lab checks.

use crate::runner::{self as gpu, KernelPath};
use crate::{libs, nvrtc};
use ktrav_term::report::{self, Report};

/// The driver release the embedded PTX and the pinned NVRTC need (13.0).
pub const MIN_DRIVER: i32 = 13000;

/// The doctor's report. Never panics; on a machine without a GPU it says
/// why, and what still works (the simulators, compiling lab files).
pub fn report() -> String {
    let mut out = Report::new();
    out.heading("doctor");
    let nvrtc = nvrtc::locate();
    let nvrtc_line = match &nvrtc {
        Ok(n) => format!("{} (can compile for compute capability {})", n.describe(), archs(&n.supported)),
        Err(why) => why.to_string(),
    };
    let gpu = gpu::open();
    match &gpu {
        Ok(g) => {
            out.line(format!("GPU: {}", g.info.describe()));
            if g.info.driver_version < MIN_DRIVER {
                out.line(format!(
                    "  {}: the driver is older than CUDA 13.0; the embedded PTX and NVRTC 13.0's PTX need a 13.0 driver (580 or newer)",
                    report::flag(false, "problem")
                ));
            }
        }
        Err(why) => {
            out.line(format!("GPU: none ({why})"));
        }
    }
    out.line(format!("NVRTC: {nvrtc_line}"));
    out.line(format!(
        "lab compilations: {} in-memory headers, no include folder; file access {}",
        nvrtc::in_memory().len(),
        crate::sandbox::probe().describe()
    ));
    out.line(format!("cuBLAS: {}", libs::load("libcublas.so.13").describe()));
    let Ok(g) = gpu else {
        out.line("will run: every chapter's simulated report; lab checks compile the student's file and stop with \"could not check\" (exit 3).");
        return out.into_string();
    };
    let path = g.kernel_path().clone();
    let loads = match g.function("ktrav_selftest", "fill_coords") {
        Ok(_) => report::flag(true, "yes"),
        Err(e) => format!("{} ({e:#})", report::flag(false, "no")),
    };
    out.line(path.describe());
    match path {
        KernelPath::Embedded { .. } => out.line(format!("embedded kernels load on this GPU: {loads}")),
        KernelPath::RunTime { .. } => out.line(format!("kernels compiled at run time load on this GPU: {loads}")),
    };
    let lab = match nvrtc {
        Ok(n) if n.supported.iter().any(|&a| a <= gpu_arch(&g)) => "lab checks: yes".to_string(),
        Ok(_) => "lab checks: no, NVRTC cannot compile for this GPU".to_string(),
        Err(_) => format!("lab checks: no, {}", "NVRTC is missing (see above)"),
    };
    out.line(format!(
        "will run: the chapters' GPU sections ({}), {lab}",
        if loads.contains("yes") { "yes" } else { "no" }
    ));
    out.into_string()
}

fn gpu_arch(g: &gpu::Gpu) -> i32 {
    nvrtc::Arch::of(g.info.compute_capability).number()
}

/// `7.5 to 12.1`.
fn archs(supported: &[i32]) -> String {
    match (supported.iter().min(), supported.iter().max()) {
        (Some(lo), Some(hi)) => format!("{}.{} to {}.{}", lo / 10, lo % 10, hi / 10, hi % 10),
        _ => "none".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_every_part_and_never_panics() {
        let text = report::plain(&report());
        for part in ["GPU: ", "NVRTC: ", "lab compilations: ", "cuBLAS: ", "will run: "] {
            assert!(text.contains(part), "no {part:?} in:\n{text}");
        }
        if gpu::open().is_err() {
            assert!(text.contains("could not check"), "{text}");
        }
        assert_eq!(archs(&[80, 75, 121]), "7.5 to 12.1");
    }
}
