//! `ktrav` holds what every chapter of Appendix K needs, written once:
//!
//! * [`doctor`]: what a lab machine has and what will run on it;
//! * [`geometry`]: matrix shapes, 2D launch dimensions and launch configs;
//! * [`sim`]: the grid simulator, the single place where the
//!   block/thread loop nest lives, with block orders and barriers;
//! * [`lab`]: checking a student's own kernel, and the exercises;
//! * [`layout`]: storage orders and the one matrix type built on them;
//! * [`kernels`]: the CUDA kernels compiled at build time and embedded;
//! * [`ladder`]: a chapter's numbered fast versions and their launch plans;
//! * [`gpu`]: the probe, the runner, comparison and the GPU report (the
//!   only code that touches cudarc);
//! * [`chapter`]: a chapter as one value;
//! * [`report`]: formatting shared by every chapter's printed report;
//! * [`progress`]: progress bars for long work;
//! * [`book`]: the check that ties each shown output to the code;
//! * [`figure`]: the SVG drawing the chapters' figures share, and
//!   [`figures`] the simulator page's own;
//! * [`cli`]: argument parsing that fails with one line and exit code 2;
//! * `testing` (feature `testing`): the checks every chapter binary's
//!   tests share.

pub mod book;
pub mod chapter;
pub mod cli;
pub mod figure;
pub mod figures;
pub mod doctor;
pub mod geometry;
pub mod gpu;
pub mod kernels;
pub mod lab;
pub mod ladder;
pub mod layout;
pub mod measured;
pub mod progress;
pub mod report;
pub mod sanitizer;
pub mod sim;
#[cfg(feature = "testing")]
pub mod testing;

pub use chapter::{Chapter, Exercise};
pub use geometry::{ceil_div, Dim2, GeometryError, LaunchConfig, Shape, Waste};
pub use layout::{Matrix, StorageOrder};
pub use sim::{launch, launch_phased, launch_stepped, BlockOrder, Thread, ThreadOrder};
