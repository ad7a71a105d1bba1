//! What a chapter's "On this GPU" section came to, as host data: the
//! chapter's `gpu` module runs it (through `ktrav_gpu`), and its binary, the
//! GPU suite and the book read only this. The environment variables that
//! steer a section are named here too, so a host-only reader (the command-
//! line tests, the GPU suite) and the GPU side name them alike.

use crate::measured;
use crate::Shape;

/// Set this variable (to anything) to make every chapter behave as if no
/// GPU were present, for example to compare outputs on a GPU machine.
pub const DISABLE_ENV: &str = "KTRAV_NO_GPU";

/// Set this variable (to anything) to add the checks on shapes past 2^31
/// elements, which need tens of gigabytes of device memory.
pub const LARGE_ENV: &str = "KTRAV_GPU_LARGE";

/// Set this variable (to anything) to time every kernel once instead of
/// taking a median: for runs under compute-sanitizer, where the checks
/// matter and the timings mean nothing.
pub const QUICK_ENV: &str = "KTRAV_GPU_QUICK";

/// Set this variable (to anything) to run a chapter's GPU section in its
/// small-shape mode: every kernel and version once on a few shapes of at
/// most a few thousand elements, no timing, one parseable line per launch
/// (see `ktrav_gpu::section`). This is the mode to run under
/// compute-sanitizer.
pub const SMALL_ENV: &str = "KTRAV_GPU_SMALL";

/// The most elements `--gpu` runs a chapter's kernels on at a reader's
/// shape: the host keeps the reference and a downloaded copy of that many
/// (16 GB for K.7's 64-bit cells).
pub const MAX_GPU_ELEMENTS: u64 = 1 << 30;

/// What became of a chapter's GPU section.
pub enum SectionOutcome {
    /// No usable GPU, and why.
    Skipped(String),
    /// The checks ran; `failures` of them disagreed.
    Ran { text: String, failures: usize, record: measured::Section },
    /// A CUDA call failed part-way (the text so far, then the error).
    Failed(String),
}

impl SectionOutcome {
    pub fn text(&self) -> String {
        match self {
            SectionOutcome::Skipped(reason) => skip_line(reason),
            SectionOutcome::Ran { text, .. } | SectionOutcome::Failed(text) => text.clone(),
        }
    }

    /// 0 when skipped or all checks agreed, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            SectionOutcome::Skipped(_) | SectionOutcome::Ran { failures: 0, .. } => 0,
            _ => 1,
        }
    }
}

/// The one line a chapter prints when it has no GPU to use.
pub fn skip_line(reason: &str) -> String {
    format!("GPU section skipped: {reason}.\n")
}

/// A run at a reader's shape whose buffers do not fit in the device's free
/// memory: the one line that refuses it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TooLarge {
    #[error(
        "the {shape} run needs {needed} bytes ({:.2} GB) of device memory, and {free} bytes ({:.2} GB) are free",
        gb(*.needed),
        gb(*.free)
    )]
    Needs { shape: Shape, needed: u64, free: u64 },
    #[error("the {shape} run needs more device memory than 64 bits can count")]
    Uncountable { shape: Shape },
}

fn gb(bytes: u64) -> f64 {
    bytes as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_section_is_one_line_and_exit_0() {
        let skipped = SectionOutcome::Skipped(format!("{DISABLE_ENV} is set"));
        assert_eq!(skipped.text(), "GPU section skipped: KTRAV_NO_GPU is set.\n");
        assert_eq!(skipped.exit_code(), 0);
        let record = measured::Section { chapter: "K.9".into(), checks: vec![], lines: vec![], tables: vec![] };
        assert_eq!(SectionOutcome::Ran { text: "x".into(), failures: 1, record }.exit_code(), 1);
        assert_eq!(SectionOutcome::Failed("y".into()).exit_code(), 1);
    }
}
