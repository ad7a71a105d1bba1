//! `ktrav_term` is the terminal edge every binary of Appendix K shares: how
//! a command reads its arguments and what it writes to the terminal. It
//! knows nothing of matrices, chapters or GPUs (that is `ktrav`, which builds
//! on it).
//!
//! * [`cli`]: argument parsing that fails with one line and exit code 2,
//!   printing that stops quietly when the reader has gone away, and the
//!   [`cli::Exit`] a command ends early with;
//! * [`report`]: formatting shared by every chapter's printed report;
//! * [`progress`]: progress bars for long work.

pub mod cli;
pub mod progress;
pub mod report;
