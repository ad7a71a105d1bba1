//! What a chapter is, as one value: every `main`, the root `cargo run`, the
//! GPU suite, the lab checker, the simulator track and the book's tests read
//! a chapter through its [`Chapter`], and through nothing else.

use crate::section::{SectionOutcome, TooLarge, MAX_GPU_ELEMENTS};
use crate::Shape;
use ktrav_term::cli::{self, Exit};

/// One section of Appendix K.
pub struct Chapter {
    /// The crate and binary name, such as `k2_transpose`.
    pub id: &'static str,
    /// The section label, such as `K.2`.
    pub section: &'static str,
    /// The section's title.
    pub title: &'static str,
    /// What the binary prints by default before any GPU section: the worked
    /// example first, then the parts this book adds, each a separate text.
    pub report: fn() -> Vec<String>,
    /// Every output file the chapter's page shows: (name under
    /// `book/outputs/`, text).
    pub shown_outputs: fn() -> Vec<(&'static str, String)>,
    /// Every figure the chapter's page shows: (name under `book/figures/`,
    /// SVG text).
    pub figures: fn() -> Vec<(&'static str, String)>,
    /// The chapter's `kernels/<id>.cu`, as text, if it has one: what its
    /// versions' comments and launch bounds are read from.
    pub kernel_source: Option<&'static str>,
    /// The chapter's values for the book's `{{value NAME}}` directives, each
    /// name prefixed with the chapter's key (`k6.…`).
    pub values: fn() -> Vec<(&'static str, String)>,
    /// The "On this GPU" entry points of the chapter's `gpu` module (the
    /// real kernels against the simulators), if it has any.
    pub gpu: Option<&'static dyn GpuHooks>,
    /// The chapter's GPU lab exercises (checked by its binary's `check`).
    pub exercises: &'static [Exercise],
    /// The chapter's exercises on the simulator track, each with the
    /// student's own file that `sim-check` checks (K.1's prediction among
    /// them, which has no GPU kernel).
    pub sim_exercises: &'static [SimExercise],
    /// "How fast can it go": the chapter's numbered fast versions of its
    /// kernel, in order (empty for a chapter without a ladder).
    pub versions: &'static [Version],
}

/// A chapter's "On this GPU" entry points, as its value holds them. The
/// functions behind them take the CUDA crate's types (`ktrav_gpu`, which
/// implements this trait for its `section::GpuEntry`), which this crate does
/// not name.
pub trait GpuHooks: Sync {
    /// The "On this GPU" section: every check and timing table, or the
    /// small-shape mode when the environment asks for it.
    fn section(&self, chapter: &Chapter) -> SectionOutcome;
    /// The section at a reader's shape (`--gpu` with `--rows`/`--cols`);
    /// `Err` when its buffers do not fit in the device's free memory.
    fn at_shape(&self, shape: Shape) -> Result<SectionOutcome, TooLarge>;
    /// Where the chapter's ladder times the solution of `ex`: the same
    /// kernel, launched the same way, on the shape returned. `Err` says why
    /// no row of the ladder is that kernel.
    fn ladder_shape(&self, ex: &Exercise) -> Result<Shape, NotOnTheLadder>;
}

/// Why no row of a chapter's ladder times an exercise's solution.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotOnTheLadder {
    /// The chapter times no ladder at all; `why` says what its section
    /// times instead.
    #[error("{section} has no ladder: {why}")]
    NoLadder { section: &'static str, why: String },
    /// The ladder times another kernel than the exercise's.
    #[error("{section}'s ladder times {ladder}, the exercise is {exercise}: not the same kernel")]
    OtherKernel { section: &'static str, ladder: String, exercise: String },
    /// The ladder launches the exercise's kernel another way.
    #[error("{section}'s ladder launches {ladder}, the exercise {exercise}: not the same launch")]
    OtherLaunch { section: &'static str, ladder: String, exercise: String },
}

impl NotOnTheLadder {
    /// The section whose ladder it is (`K.5`).
    pub fn section(&self) -> &'static str {
        match self {
            NotOnTheLadder::NoLadder { section, .. }
            | NotOnTheLadder::OtherKernel { section, .. }
            | NotOnTheLadder::OtherLaunch { section, .. } => section,
        }
    }
}

/// An exercise on the simulator track (see [`crate::lab::simcheck`]).
pub use crate::lab::simcheck::SimExercise;
/// A lab exercise (see [`crate::lab`]).
pub use crate::lab::Exercise;
/// A numbered fast version (see [`crate::ladder`]).
pub use crate::ladder::Version;

impl Chapter {
    /// `K.2 A tiled transpose for any shape`.
    pub fn heading(&self) -> String {
        format!("{} {}", self.section, self.title)
    }

    /// The default report as one text: its parts separated by blank lines.
    pub fn report_text(&self) -> String {
        (self.report)().join("\n")
    }

    /// The chapter's ladder as its page lists it: each version's kernel,
    /// the block it is written for (with the most threads its
    /// `__launch_bounds__` allows) and its static shared memory, and why it
    /// exists, in the words of its `// vN:` comment in the chapter's `.cu`
    /// file.
    ///
    /// # Panics
    /// Panics if the chapter has versions but no kernel source, or a version
    /// has no `// vN` comment: the book's tests rely on both.
    pub fn ladder_text(&self) -> String {
        let source = self.kernel_source.unwrap_or_else(|| panic!("{} has versions but no kernel source", self.id));
        let mut out = ktrav_term::report::Report::new();
        out.heading(&format!("The versions of kernels/{}.cu", self.id));
        for (i, v) in self.versions.iter().enumerate() {
            let reason = crate::cu::version_reason(source, i + 1, v.kernel)
                .unwrap_or_else(|| panic!("kernels/{}.cu has no // v{} comment above {}", self.id, i + 1, v.kernel));
            let block = match (v.block, crate::cu::launch_bounds(source, v.kernel)) {
                (crate::ladder::BlockRule::Exactly(_), _) | (_, None) => v.block.describe(),
                (_, Some(most)) => format!("{}, at most {most} threads (its __launch_bounds__)", v.block.describe()),
            };
            out.line(format!("v{} {}: {block}, {} bytes of static shared memory", i + 1, v.kernel, v.static_shared));
            out.line(format!("   {reason}"));
        }
        out.into_string()
    }

    /// The "On this GPU" section, if the chapter has one.
    pub fn gpu_section(&self) -> Option<SectionOutcome> {
        self.gpu.map(|gpu| gpu.section(self))
    }

    /// `--gpu` with a shape: refuses in one line ([`Exit::Usage`]) a
    /// chapter without a GPU section, and a shape of more elements than the
    /// host can hold the reference of ([`MAX_GPU_ELEMENTS`]), before
    /// anything is allocated or any GPU probed, and a shape the section
    /// refuses ([`TooLarge`]); otherwise prints the section at that shape
    /// and returns the exit code the default run would (1 if a check
    /// disagreed, 0 otherwise or when there is no GPU, in one line).
    pub fn run_at_shape(&self, shape: Shape) -> Result<i32, Exit> {
        let Some(gpu) = self.gpu else {
            return Err(Exit::Usage(format!("{} has no GPU section: --gpu runs none of its kernels", self.heading())));
        };
        cli::check_limit("matrix elements on the GPU", shape.checked_elements(), MAX_GPU_ELEMENTS)?;
        let outcome = cli::usage(gpu.at_shape(shape))?;
        cli::print(&outcome.text())?;
        Ok(outcome.exit_code())
    }

    /// What the binary does with no arguments: prints the report, then the
    /// GPU section (or the one line saying why it was skipped). Returns the
    /// exit code: 1 if a GPU check disagreed, else 0.
    pub fn run_default(&self) -> Result<i32, Exit> {
        cli::print(&self.report_text())?;
        let Some(outcome) = self.gpu_section() else { return Ok(0) };
        cli::print(&format!("\n{}", outcome.text()))?;
        Ok(outcome.exit_code())
    }
}
