//! The "On this GPU" section a chapter prints after its worked example:
//! one line per cross-check, each ending in a coloured verdict, and tables
//! of bandwidth measured side by side with a device copy.
//!
//! # Three ways to run a section
//!
//! * **Whole** (the default): every check of the chapter on its own shapes,
//!   then its timing tables.
//! * **Small** (set [`SMALL_ENV`], `KTRAV_GPU_SMALL=1`): every kernel of the
//!   chapter, teaching kernels, every numbered version and the kernels that
//!   are wrong on purpose, once each on [`small_shapes`] (at most a few
//!   thousand elements: 1x1, 1xN, Nx1, a ragged shape and an aligned one),
//!   with no timing loop. This is the mode to run under compute-sanitizer
//!   (memcheck, racecheck, synccheck, initcheck): each tool finishes a
//!   chapter in seconds.
//! * **At a shape** (`--rows R --cols C --gpu` on a chapter's command line):
//!   every kernel and version at the reader's shape, checked against the
//!   host reference, then timed beside a device copy as in the whole run.
//!
//! # The run lines of the small mode
//!
//! In the small mode every launch prints one line that a log reader can
//! parse, starting at the first column:
//!
//! ```text
//! small-run chapter=k4_boundary_check kernel=add_v1_grid_stride role=version shape=37x61 grid=2x1 block=256x1 result=agrees
//! small-run chapter=k4_boundary_check kernel=add_guard_x_only role=wrong shape=37x61 grid=2x8 block=32x8 result=shown wrong=61/2257
//! small-summary chapter=k4_boundary_check runs=84 disagree=0
//! ```
//!
//! Fields are `key=value`, separated by single spaces; no value holds a space.
//! `chapter` is the chapter's crate name; `kernel` the `extern "C"` entry
//! point launched; `role` is `teaching` (a kernel the chapter's text
//! teaches), `version` (a numbered version of its ladder) or `wrong` (a
//! kernel wrong on purpose, whose sanitizer findings are expected and
//! shown, never judged); `shape` is rows x cols; `grid` and `block` are the
//! launch's `gridDim` and `blockDim` (x by y); `result` is `agrees` or
//! `DISAGREES` against the reference, and for `role=wrong` either `shown`,
//! with `wrong=N/M` the cells that differed out of all, or `aborted` when
//! the launch ended in an error (under memcheck, which reports the accesses
//! past an allocation and fails the launch; the context is lost then, so the section runs nothing
//! more on the GPU, prints `skipped` for each launch it could not make,
//! and goes on to its summary). A kernel launched
//! in several steps (one launch per diagonal) prints one line for the whole
//! fill, its `grid` that of the first launch. More keys may be added at the
//! end; readers ignore keys they do not know. The last line of the section
//! is `small-summary` with the number of runs and how many disagreed; the
//! process exits 1 when any did.

use crate::runner::{open, Gpu};
use anyhow::{Context, Result};
use ktrav::compare::Agreement;
use ktrav::measured;
use ktrav::section::{SectionOutcome, LARGE_ENV, QUICK_ENV};
pub use ktrav::section::{TooLarge, MAX_GPU_ELEMENTS, SMALL_ENV};
use ktrav::{Chapter, LaunchConfig, Shape};
use ktrav_term::report::{self, Report};

/// The shapes of the small-shape mode: 1x1, one row and one column of 2000,
/// a ragged 37x61 and an aligned 48x64, none over 3072 elements.
pub fn small_shapes() -> Vec<Shape> {
    vec![Shape::new(1, 1), Shape::new(1, 2000), Shape::new(2000, 1), Shape::new(37, 61), Shape::new(48, 64)]
}

/// What a launch of the small-shape mode is (the `role` of its line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A kernel the chapter's text teaches.
    Teaching,
    /// A numbered version of the chapter's ladder.
    Version,
    /// A kernel wrong on purpose: what it does is shown, never judged.
    Wrong,
}

impl Role {
    pub fn word(self) -> &'static str {
        match self {
            Role::Teaching => "teaching",
            Role::Version => "version",
            Role::Wrong => "wrong",
        }
    }
}

/// One `small-run` line (see the module's docs).
pub fn run_line(chapter: &str, kernel: &str, role: Role, shape: Shape, cfg: &LaunchConfig, result: &str) -> String {
    let (g, b) = (cfg.grid, cfg.block);
    let shape = format!("{}x{}", shape.rows, shape.cols);
    format!(
        "small-run chapter={chapter} kernel={kernel} role={} shape={shape} grid={}x{} block={}x{} result={result}",
        role.word(),
        g.x,
        g.y,
        b.x,
        b.y
    )
}

/// How many timed repeats to make of `wanted`: one under [`QUICK_ENV`].
pub fn repeats(wanted: usize) -> usize {
    if std::env::var_os(QUICK_ENV).is_some() {
        1
    } else {
        wanted.max(1)
    }
}

/// A chapter's GPU checks: everything it launches and compares.
pub type GpuChecks = fn(&Gpu, &mut GpuSection) -> Result<()>;

/// A chapter's GPU entry points, as its `gpu` module defines them; its
/// [`Chapter`] value holds them as its [`ktrav::chapter::GpuHooks`].
pub struct GpuEntry {
    /// Every cross-check and timing table of the whole section.
    pub checks: GpuChecks,
    /// Every kernel once on [`small_shapes`], for the sanitizers.
    pub small: GpuChecks,
    /// The section at a reader's shape (`--gpu`), built on [`section_at`].
    pub at_shape: fn(Shape) -> std::result::Result<SectionOutcome, TooLarge>,
    /// Where the ladder times an exercise's solution (see
    /// [`ktrav::chapter::GpuHooks::ladder_shape`]).
    pub ladder_shape: fn(&ktrav::lab::Exercise) -> std::result::Result<Shape, ktrav::chapter::NotOnTheLadder>,
}

impl ktrav::chapter::GpuHooks for GpuEntry {
    fn section(&self, chapter: &Chapter) -> SectionOutcome {
        section_modes(chapter, self.checks, self.small)
    }

    fn at_shape(&self, shape: Shape) -> std::result::Result<SectionOutcome, TooLarge> {
        (self.at_shape)(shape)
    }

    fn ladder_shape(&self, ex: &ktrav::lab::Exercise) -> std::result::Result<Shape, ktrav::chapter::NotOnTheLadder> {
        (self.ladder_shape)(ex)
    }
}

// ANCHOR: section
/// The report of a chapter's GPU checks in progress.
pub struct GpuSection {
    report: Report,
    failures: usize,
    large: bool,
    record: measured::Section,
    /// The chapter's crate name, for the small mode's lines.
    id: String,
    /// Whether this is the small-shape mode, and its runs and disagreements.
    small: bool,
    runs: usize,
    runs_disagreeing: usize,
}

impl GpuSection {
    fn new(gpu: &Gpu, chapter: &str, large: bool) -> Self {
        let mut report = Report::new();
        report.heading(&format!("On this GPU: {}", gpu.info.describe()));
        let record = measured::Section { chapter: chapter.to_string(), checks: vec![], lines: vec![], tables: vec![] };
        GpuSection { report, failures: 0, large, record, id: String::new(), small: false, runs: 0, runs_disagreeing: 0 }
    }

    /// Whether this is the small-shape mode (see the module's docs): one
    /// launch per kernel and shape, no timing.
    pub fn small(&self) -> bool {
        self.small
    }

    /// One launch of the small-shape mode checked against its reference:
    /// its `small-run` line, counted in the verdicts.
    pub fn run(&mut self, kernel: &str, role: Role, shape: Shape, cfg: &LaunchConfig, agreement: &Agreement) {
        self.run_with(kernel, role, shape, cfg, agreement, "");
    }

    /// [`GpuSection::run`] with more `key=value` fields at the end of the
    /// line (`extra` starts with a space, or is empty).
    pub fn run_with(
        &mut self,
        kernel: &str,
        role: Role,
        shape: Shape,
        cfg: &LaunchConfig,
        agreement: &Agreement,
        extra: &str,
    ) {
        let ok = agreement.ok();
        self.runs += 1;
        if !ok {
            self.failures += 1;
            self.runs_disagreeing += 1;
        }
        let result = if ok { "agrees" } else { "DISAGREES" };
        self.report.line(format!("{}{extra}", run_line(&self.id, kernel, role, shape, cfg, result)));
        let label = format!("{shape} {kernel} ({})", role.word());
        let after_lines = Some(self.record.lines.len());
        self.record.checks.push(measured::Check { label, detail: agreement.describe(), ok, after_lines });
    }

    /// One launch of a kernel wrong on purpose in the small-shape mode:
    /// `wrong` of `of` cells differed, shown and never judged.
    pub fn run_shown(&mut self, kernel: &str, shape: Shape, cfg: &LaunchConfig, wrong: u64, of: u64) {
        self.runs += 1;
        let line = run_line(&self.id, kernel, Role::Wrong, shape, cfg, "shown");
        self.report.line(format!("{line} wrong={wrong}/{of}"));
        self.record.lines.push(format!("{shape} {kernel} (wrong on purpose): {wrong} of {of} cells wrong"));
    }

    /// A launch of a kernel wrong on purpose that ended in an error (memcheck
    /// reports the accesses past an allocation and fails the launch): shown
    /// as `result=aborted`, never judged.
    pub fn run_aborted(&mut self, kernel: &str, shape: Shape, cfg: &LaunchConfig, error: &str) {
        self.runs += 1;
        self.report.line(run_line(&self.id, kernel, Role::Wrong, shape, cfg, "aborted"));
        self.record.lines.push(format!("{shape} {kernel} (wrong on purpose): the launch ended in an error: {error}"));
    }

    /// A launch of a kernel wrong on purpose that the section could not
    /// make, since an earlier launch lost the context: `result=skipped`.
    pub fn run_skipped(&mut self, kernel: &str, shape: Shape, cfg: &LaunchConfig) {
        self.report.line(run_line(&self.id, kernel, Role::Wrong, shape, cfg, "skipped"));
        self.record.lines.push(format!("{shape} {kernel} (wrong on purpose): not run, the context was lost"));
    }

    /// Whether the checks on shapes past 2^31 elements were asked for.
    pub fn large(&self) -> bool {
        self.large
    }

    /// Records one cross-check; `ms` is the kernel time, printed for
    /// interest only (it is never part of asserted output).
    pub fn check(&mut self, label: &str, agreement: &Agreement, ms: Option<f32>) {
        self.verdict(label, &agreement.describe(), agreement.ok(), ms);
    }

    /// Records a check of any kind: `label: detail ... verdict`.
    pub fn verdict(&mut self, label: &str, detail: &str, ok: bool, ms: Option<f32>) {
        if !ok {
            self.failures += 1;
        }
        let time = ms.map(|ms| format!(" [{ms:.3} ms]")).unwrap_or_default();
        let word = report::flag(ok, if ok { "agrees" } else { "DISAGREES" });
        self.report.line(format!("  {label}: {detail}{time}: {word}"));
        let (label, detail) = (report::plain(label), report::plain(detail));
        let after_lines = Some(self.record.lines.len());
        self.record.checks.push(measured::Check { label, detail, ok, after_lines });
    }

    /// A line of commentary.
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.record.lines.push(report::plain(text.as_ref()));
        self.report.line(text);
    }

    /// A part of the checks that could not run here, and why, in one line.
    pub fn skipped(&mut self, part: &str, reason: impl std::fmt::Display) {
        self.line(format!("{part} skipped: {reason}."));
    }

    pub fn failures(&self) -> usize {
        self.failures
    }

    /// Starts a bandwidth table: times a device-to-device copy of
    /// `copy_bytes` bytes and prints it as the yardstick. Rows added with
    /// [`Bandwidth::row`] are timed in the same run, so their ratio to the
    /// copy is meaningful even though the times themselves vary.
    pub fn bandwidth(&mut self, gpu: &Gpu, title: &str, copy_bytes: usize, repeats: usize) -> Result<Bandwidth> {
        let repeats = self::repeats(repeats);
        let src = gpu.poisoned::<u32>(copy_bytes / 4)?;
        let mut dst = gpu.poisoned::<u32>(copy_bytes / 4)?;
        let copy_ms = median_ms(repeats, || gpu.copy_ms(&src, &mut dst))?;
        self.line(format!("bandwidth on {title}, median of {repeats} (timings vary run to run; never asserted):"));
        self.report.line(format!(
            "  device-to-device copy: {copy_ms:.3} ms, {:.0} GB/s",
            gbps(2 * copy_bytes as u64, copy_ms)
        ));
        self.record.tables.push(measured::Table {
            title: report::plain(title),
            copy_bytes: 2 * copy_bytes as u64,
            copy_ms: copy_ms as f64,
            repeats,
            rows: vec![],
            yardstick: None,
        });
        Ok(Bandwidth { copy_ms, repeats, table: self.record.tables.len() - 1, speedup: false })
    }

    /// Starts a table of times against a named yardstick rather than a
    /// copy: `yardstick_ms` (a median of `repeats`, timed by the caller in
    /// this run) is printed first, and each row added with
    /// [`Bandwidth::row`] is printed and recorded as a speed-up over it.
    /// `bytes` is what the yardstick writes, kept with the table.
    pub fn timings(
        &mut self,
        title: &str,
        yardstick: &str,
        yardstick_ms: f32,
        bytes: u64,
        repeats: usize,
    ) -> Bandwidth {
        let repeats = self::repeats(repeats);
        self.line(format!("times on {title}, median of {repeats} (timings vary run to run; never asserted):"));
        self.report.line(format!("  {yardstick} (yardstick): {yardstick_ms:.3} ms"));
        self.record.tables.push(measured::Table {
            title: report::plain(title),
            copy_bytes: bytes,
            copy_ms: yardstick_ms as f64,
            repeats,
            rows: vec![],
            yardstick: Some(report::plain(yardstick)),
        });
        Bandwidth { copy_ms: yardstick_ms, repeats, table: self.record.tables.len() - 1, speedup: true }
    }
}

/// A bandwidth table in progress (see [`GpuSection::bandwidth`]).
pub struct Bandwidth {
    copy_ms: f32,
    repeats: usize,
    table: usize,
    /// Rows print as a speed-up over a named yardstick, not a bandwidth.
    speedup: bool,
}

impl Bandwidth {
    /// Runs `launch` (which returns one launch's time in ms) as many times
    /// as the copy was timed and prints the median, the effective bandwidth
    /// for `bytes` moved per launch, and the ratio to the copy's time.
    pub fn row(
        &self,
        sec: &mut GpuSection,
        label: &str,
        bytes: u64,
        launch: impl FnMut() -> Result<f32>,
    ) -> Result<f32> {
        let ms = median_ms(self.repeats, launch)?;
        if self.speedup {
            sec.report.line(format!("  {label}: {ms:.3} ms, {:.2}x faster than the yardstick", self.copy_ms / ms));
        } else {
            sec.report.line(format!(
                "  {label}: {ms:.3} ms, {:.0} GB/s, {:.2}x the copy's time",
                gbps(bytes, ms),
                ms / self.copy_ms
            ));
        }
        let row = measured::Timing { label: report::plain(label), bytes, ms: ms as f64 };
        sec.record.tables[self.table].rows.push(row);
        Ok(ms)
    }

    /// The copy's median time in milliseconds.
    pub fn copy_ms(&self) -> f32 {
        self.copy_ms
    }
}

/// Effective bandwidth in GB/s of moving `bytes` in `ms` milliseconds.
pub fn gbps(bytes: u64, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e9
}

/// The median of `repeats` timings from `launch`.
pub fn median_ms(repeats: usize, mut launch: impl FnMut() -> Result<f32>) -> Result<f32> {
    let times = (0..self::repeats(repeats)).map(|_| launch()).collect::<Result<Vec<f32>>>()?;
    Ok(report::median(times).expect("at least one timing"))
}

/// Opens the GPU and runs a chapter's cross-checks on it, or explains in
/// one line why the section was skipped. The large checks run when
/// [`LARGE_ENV`] is set.
pub fn section(checks: impl FnOnce(&Gpu, &mut GpuSection) -> Result<()>) -> SectionOutcome {
    section_named("", checks)
}

/// [`section`], with the chapter's name kept in the section's record.
pub fn section_named(chapter: &str, checks: impl FnOnce(&Gpu, &mut GpuSection) -> Result<()>) -> SectionOutcome {
    run_section(chapter, "", false, checks)
}

/// A chapter's whole section: [`section_named`] with the chapter's heading.
pub fn section_of(chapter: &Chapter, checks: GpuChecks) -> SectionOutcome {
    section_named(&chapter.heading(), checks)
}

/// A chapter's section in the mode the environment asks for: `whole` (the
/// default), or `small` when [`SMALL_ENV`] is set, which ends with the
/// `small-summary` line.
pub fn section_modes(chapter: &Chapter, whole: GpuChecks, small: GpuChecks) -> SectionOutcome {
    if std::env::var_os(SMALL_ENV).is_none() {
        return section_of(chapter, whole);
    }
    run_section(&chapter.heading(), chapter.id, true, |gpu, sec| {
        sec.line(format!(
            "small shapes ({}), every kernel and version once, no timing:",
            ktrav_term::report::join(small_shapes(), ", ")
        ));
        small(gpu, sec)?;
        let (id, runs, disagree) = (sec.id.clone(), sec.runs, sec.runs_disagreeing);
        sec.line(format!("small-summary chapter={id} runs={runs} disagree={disagree}"));
        Ok(())
    })
}

/// The section at a reader's shape (`--gpu`): opens the GPU (one line if
/// there is none), refuses a shape whose buffers, `needed(sms)` bytes, do
/// not fit in the free device memory (`Err`, before anything is
/// allocated), and then runs `checks`.
pub fn section_at(
    chapter: &Chapter,
    shape: Shape,
    needed: impl FnOnce(u32) -> Option<u64>,
    checks: impl FnOnce(&Gpu, &mut GpuSection) -> Result<()>,
) -> std::result::Result<SectionOutcome, TooLarge> {
    let gpu = match open() {
        Ok(gpu) => gpu,
        Err(reason) => return Ok(SectionOutcome::Skipped(reason.0)),
    };
    let mut sec = GpuSection::new(&gpu, &chapter.heading(), std::env::var_os(LARGE_ENV).is_some());
    sec.id = chapter.id.to_string();
    let room = gpu.multiprocessors().map(needed).and_then(|needed| {
        let free = gpu.free_memory().context("reading the device's free memory failed")?;
        Ok((needed, free as u64))
    });
    match room {
        Ok((needed, free)) => fits(shape, needed, free)?,
        // A failure of the device, not of the reader's shape.
        Err(e) => return Ok(finish(&gpu, sec, |_, _| Err(e))),
    }
    sec.line(format!("every kernel and version at {shape}, checked, then timed:"));
    Ok(finish(&gpu, sec, checks))
}

/// Whether a run at `shape` that takes `needed` bytes of device memory fits
/// in the `free` bytes the device has.
pub fn fits(shape: Shape, needed: Option<u64>, free: u64) -> std::result::Result<(), TooLarge> {
    match needed {
        Some(needed) if needed <= free => Ok(()),
        Some(needed) => Err(TooLarge::Needs { shape, needed, free }),
        None => Err(TooLarge::Uncountable { shape }),
    }
}

/// Opens the GPU and runs `checks` in one mode.
fn run_section(
    heading: &str,
    id: &str,
    small: bool,
    checks: impl FnOnce(&Gpu, &mut GpuSection) -> Result<()>,
) -> SectionOutcome {
    let gpu = match open() {
        Ok(gpu) => gpu,
        Err(reason) => return SectionOutcome::Skipped(reason.0),
    };
    let mut sec = GpuSection::new(&gpu, heading, std::env::var_os(LARGE_ENV).is_some());
    sec.id = id.to_string();
    sec.small = small;
    finish(&gpu, sec, checks)
}

/// Runs `checks` and turns the section into its outcome.
fn finish(gpu: &Gpu, mut sec: GpuSection, checks: impl FnOnce(&Gpu, &mut GpuSection) -> Result<()>) -> SectionOutcome {
    match checks(gpu, &mut sec) {
        Ok(()) => SectionOutcome::Ran { text: sec.report.into_string(), failures: sec.failures, record: sec.record },
        Err(e) => {
            sec.line(format!("  {}: {e:#}", report::flag(false, "CUDA error")));
            SectionOutcome::Failed(sec.report.into_string())
        }
    }
}
// ANCHOR_END: section

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::Dim2;

    /// The shapes the module's docs promise: none over a few thousand
    /// elements, a 1xN, an Nx1, one ragged on both axes against 32-wide
    /// tiles, and 1x1.
    #[test]
    fn small_shapes_are_small_and_cover_the_edges() {
        let shapes = small_shapes();
        assert!(shapes.iter().all(|s| s.elements() <= 3072), "{shapes:?}");
        assert!(shapes.contains(&Shape::new(1, 1)));
        assert!(shapes.iter().any(|s| s.rows == 1 && s.cols > 1000));
        assert!(shapes.iter().any(|s| s.cols == 1 && s.rows > 1000));
        assert!(shapes.iter().any(|s| s.rows % 32 != 0 && s.cols % 32 != 0 && s.rows > 32 && s.cols > 32));
    }

    /// A run needing more than the free device memory is refused in one
    /// line that says how much it needs and how much is free; one that fits
    /// is let through.
    #[test]
    fn a_run_that_does_not_fit_says_how_much_it_needs() {
        let shape = Shape::new(5000, 3000);
        let free = 3_000_000_000;
        assert_eq!(fits(shape, Some(free), free), Ok(()));
        let e = fits(shape, Some(free + 1), free).unwrap_err().to_string();
        assert_eq!(
            e,
            "the 5000x3000 run needs 3000000001 bytes (3.00 GB) of device memory, and 3000000000 bytes (3.00 GB) are free"
        );
        assert!(fits(shape, None, free).unwrap_err().to_string().contains("64 bits"));
    }

    /// The line of the docs' example, field by field: a log reader splits
    /// it on spaces and `=`.
    #[test]
    fn a_run_line_is_key_value_pairs() {
        let cfg = LaunchConfig { grid: Dim2::new(2, 8), block: Dim2::new(32, 8) };
        let line = run_line("k4_boundary_check", "fill_checked", Role::Teaching, Shape::new(37, 61), &cfg, "agrees");
        assert_eq!(
            line,
            "small-run chapter=k4_boundary_check kernel=fill_checked role=teaching shape=37x61 grid=2x8 block=32x8 result=agrees"
        );
        let fields: Vec<(&str, &str)> = line.split(' ').skip(1).map(|f| f.split_once('=').unwrap()).collect();
        let keys: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["chapter", "kernel", "role", "shape", "grid", "block", "result"]);
        let doc = include_str!("section.rs");
        let example = doc.lines().find(|l| l.starts_with("//! small-run ") && l.contains("role=version")).unwrap();
        let doc_keys: Vec<&str> = example[4..].split(' ').skip(1).map(|f| f.split_once('=').unwrap().0).collect();
        assert_eq!(doc_keys, keys, "the docs' example has the fields the code prints");
    }
}
