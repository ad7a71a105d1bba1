//! What a chapter is, as one value: every `main`, the root `cargo run`, the
//! GPU suite and the book's tests read a chapter through its [`Chapter`].

use crate::gpu::GpuChecks;

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
    /// The real kernels against the simulators, where a GPU exists.
    pub gpu_checks: Option<GpuChecks>,
    /// The chapter's GPU lab exercises, from [`crate::lab::catalogue`]
    /// (checked by its binary's `check`; the simulator track's twins live
    /// in the chapter's `exercises` module).
    pub exercises: &'static [Exercise],
}

/// A lab exercise: the one catalogue is [`crate::lab::catalogue`].
pub use crate::lab::Exercise;

impl Chapter {
    /// `K.2 Transpose on the GPU`.
    pub fn heading(&self) -> String {
        format!("{} {}", self.section, self.title)
    }

    /// The default report as one text: its parts separated by blank lines.
    pub fn report_text(&self) -> String {
        (self.report)().join("\n")
    }

    /// What the binary does with no arguments: prints the report, then the
    /// GPU section (or the one line saying why it was skipped). Exits
    /// non-zero if a GPU check disagreed.
    pub fn run_default(&self) {
        crate::cli::print(&self.report_text());
        if let Some(checks) = self.gpu_checks {
            crate::gpu::print_section(checks);
        }
    }
}
