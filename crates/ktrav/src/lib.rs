//! `ktrav` is the host model every chapter of Appendix K shares, written
//! once and runnable on any machine: it links no CUDA library and needs no
//! compiler for the kernels (the GPU side is `ktrav_gpu`).
//!
//! * [`geometry`]: matrix shapes, 2D launch dimensions and launch configs;
//! * [`sim`]: the grid simulator, the single place where the
//!   block/thread loop nest lives, with block orders and barriers;
//! * [`layout`]: storage orders and the one matrix type built on them;
//! * [`mod@compare`]: checking an output against what it should be (the poison
//!   word, exact comparison, test inputs);
//! * [`lab`]: the lab's model: exercises, the battery, verdicts, `expect`
//!   lines, and the simulator track;
//! * [`ladder`]: the model of a chapter's numbered fast versions and their
//!   launch plans, and [`cu`] what a kernel file states about them;
//! * [`chapter`]: a chapter as one value, and [`section`] what its GPU
//!   section came to;
//! * [`measured`]: the schema of a measurement record;
//! * [`occupancy`]: how many blocks fit on a multiprocessor.
//!
//! How a binary reads its arguments and prints lives in `ktrav_term`, below
//! this crate; figures are drawn by `ktrav_figure`, the book's shown outputs
//! are checked by `ktrav_book`, and the chapter binaries' shared test checks
//! are `ktrav_testing`.

pub mod chapter;
pub mod compare;
pub mod cu;
pub mod geometry;
pub mod lab;
pub mod ladder;
pub mod layout;
pub mod measured;
pub mod occupancy;
pub mod section;
pub mod sim;

pub use chapter::{Chapter, Exercise, GpuHooks, SimExercise};
pub use compare::{compare, compare_with, test_input, test_value, Agreement, POISON_WORD};
pub use geometry::{ceil_div, Dim2, GeometryError, LaunchConfig, Shape, Waste};
pub use layout::{Matrix, StorageOrder};
pub use section::SectionOutcome;
pub use sim::{launch, launch_phased, launch_stepped, BlockOrder, Thread, ThreadOrder};
