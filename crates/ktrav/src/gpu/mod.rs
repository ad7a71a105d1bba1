//! The GPU side of the book, and the only code that touches cudarc:
//!
//! * [`probe`]: is there a GPU? (never panics);
//! * [`libs`]: finding the CUDA libraries, saying where it looked;
//! * [`nvrtc`]: compiling CUDA C++ at run time (lab checks, older GPUs);
//! * [`runner`]: the [`Gpu`] every chapter launches through;
//! * [`compare`]: exact comparison with a simulator or reference;
//! * [`section`]: the "On this GPU" report and its bandwidth tables;
//! * [`blas`]: cuBLAS's sgemm, for K.5.

pub mod blas;
pub mod compare;
pub mod libs;
pub mod nvrtc;
pub mod probe;
pub mod runner;
pub mod section;

pub use compare::{compare, compare_with, Agreement};
pub use probe::{probe, DeviceInfo, Probe, DISABLE_ENV};
pub use runner::{
    open, Args, DeviceBuffer, Gpu, Kernel, KernelPath, PushKernelArg, Unavailable, FORCE_NVRTC_ENV, POISON_WORD,
};
pub use section::{gbps, median_ms, print_section, section, section_named, skip_line, Bandwidth, GpuChecks, GpuSection, SectionOutcome, LARGE_ENV, QUICK_ENV};

/// A value for element `i` of a test input: 24 well-mixed bits, exact as
/// an `f32`, so a misplaced element is caught even in a matrix of billions.
pub fn test_value(i: u64) -> f32 {
    (i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f32
}

/// `n` test values, `test_value(offset + i)` for each `i`, filled on every
/// CPU core (a matrix past 2^31 elements takes seconds on one).
pub fn test_input(n: u64, offset: u64) -> Vec<f32> {
    let mut v = vec![0.0f32; n as usize];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(64);
    let chunk = v.len().div_ceil(threads).max(1 << 16);
    std::thread::scope(|scope| {
        for (k, part) in v.chunks_mut(chunk).enumerate() {
            scope.spawn(move || {
                for (j, x) in part.iter_mut().enumerate() {
                    *x = test_value(offset + (k * chunk + j) as u64);
                }
            });
        }
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dim2, LaunchConfig, Shape};

    /// Runs on a real GPU when there is one; says it was skipped otherwise.
    #[test]
    fn runner_launches_poisons_and_compares() {
        let gpu = match open() {
            Ok(gpu) => gpu,
            Err(reason) => {
                eprintln!("skipped: no GPU ({reason})");
                return;
            }
        };
        let (rows, cols) = (37u64, 61u64);
        let expect: Vec<i32> = (0..rows).flat_map(|r| (0..cols).map(move |c| (r * 1000 + c) as i32)).collect();
        let f = gpu.function("ktrav_selftest", "fill_coords").unwrap();
        let run = |cfg: LaunchConfig| -> Agreement {
            let mut out = gpu.poisoned::<i32>((rows * cols) as usize).unwrap();
            let (r, c) = (rows as i64, cols as i64);
            let mut args = gpu.args(&f);
            args.arg(&mut out).arg(&r).arg(&c);
            gpu.launch(args, &cfg, 0).unwrap();
            compare(&gpu.download(&out).unwrap(), &expect)
        };
        let full = LaunchConfig::covering(Shape::new(rows, cols), Dim2::new(16, 16)).unwrap();
        assert!(run(full).ok());
        // One block column short: the last 61 - 48 = 13 columns stay poisoned.
        let short = LaunchConfig { grid: Dim2::new(full.grid.x - 1, full.grid.y), ..full };
        let a = run(short);
        assert_eq!((a.unwritten, a.mismatched, a.first_bad), ((13 * rows) as usize, 0, Some(48)));
        eprintln!("ran on {}", gpu.info.describe());
    }

}
