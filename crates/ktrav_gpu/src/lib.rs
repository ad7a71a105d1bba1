//! `ktrav_gpu` is the CUDA boundary of Appendix K, and the only code that
//! touches cudarc: everything here needs a GPU, a CUDA library or the kernels
//! nvcc compiled at build time. The host model it launches for is `ktrav`.
//!
//! * [`kernels`]: `kernels/*.cu`, compiled at build time and embedded, and
//!   the checks on ptxas's report;
//! * [`mod@probe`]: is there a GPU? (never panics);
//! * [`libs`]: finding the CUDA libraries, saying where it looked;
//! * [`nvrtc`]: compiling CUDA C++ at run time (lab checks, older GPUs);
//! * [`hints`]: why a student's kernel cannot be launched as it stands;
//! * [`runner`]: the [`Gpu`] every chapter launches through;
//! * [`graph`]: launches captured once into a CUDA graph and replayed;
//! * [`blas`]: cuBLAS's sgemm, for K.5;
//! * [`mod@section`]: the "On this GPU" report and its bandwidth tables, in its
//!   three modes: whole, small shapes for the sanitizers (`KTRAV_GPU_SMALL=1`)
//!   and at a reader's shape (`--gpu`);
//! * [`ladder`]: every chapter's numbered versions, validated then timed;
//! * [`record`]: where a measurement record was made;
//! * [`check`]: `check FILE.cu`, the lab checker on a GPU;
//! * [`doctor`]: what a lab machine has and what will run on it.

pub mod blas;
pub mod check;
pub mod commands;
pub mod doctor;
pub mod graph;
pub mod hints;
pub mod kernels;
pub mod ladder;
pub mod libs;
pub mod nvrtc;
pub mod probe;
pub mod record;
pub mod runner;
pub mod sandbox;
pub mod section;

pub use ktrav::section::{DISABLE_ENV, LARGE_ENV, QUICK_ENV, SMALL_ENV};
pub use probe::{probe, DeviceInfo, Probe, Unavailable};
pub use runner::{open, Args, DeviceBuffer, Gpu, Kernel, KernelPath, PushKernelArg, FORCE_NVRTC_ENV};
pub use section::{gbps, median_ms, section, section_named, Bandwidth, GpuChecks, GpuEntry, GpuSection};
