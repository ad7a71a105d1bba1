//! Lab checks: a student's own kernel, compiled at run time with NVRTC and
//! judged on a fixed public battery of shapes.
//!
//! A chapter binary offers `check FILE.cu [--large] [--json]` by embedding
//! [`CheckArgs`] as a clap subcommand and calling [`run_check`]. For every
//! shape of the battery the output buffer is poisoned and surrounded by
//! poisoned guard words, so each line tells apart elements that are
//! *wrong*, *unwritten*, and writes *out of bounds*; a launch error, a
//! crash and a kernel that never finishes (a watchdog polls an event) are
//! verdicts too. Only when every shape passes is the kernel timed beside a
//! device copy and the chapter's own kernel (never asserted).
//!
//! Exit codes: 0 every shape passes, 1 one fails (or the file does not
//! compile), 2 bad input (one line on stderr, before any work), and
//! [`COULD_NOT_CHECK`] when there is no GPU or no NVRTC to check with.

pub mod catalogue;
pub mod reference;
pub mod expect;
pub mod simtrack;

pub use catalogue::{BY_CHAPTER, K2_TRANSPOSE, K3_GRID_MAPPING, K4_BOUNDARY_CHECK, K5_LAYOUT_INTEROP, K6_SPIRAL, K7_DIAGONAL};

use crate::geometry::{ceil_div, Dim2, LaunchConfig, Shape, MAX_GRID_Y};
use crate::gpu::{self, nvrtc, Gpu, Kernel, PushKernelArg, POISON_WORD};
use crate::report::{self, Report};
use anyhow::{anyhow, Result};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// The exit code of a check that could not be made (no GPU, no NVRTC).
pub const COULD_NOT_CHECK: i32 = 3;

/// Poisoned 32-bit words kept before and after every output buffer.
pub const GUARD_WORDS: usize = 1 << 16;

/// Timed runs of each kernel; the median is printed.
pub const TIMING_REPEATS: usize = 11;

/// The expected bits of output element `i` (an `f32`'s bits, or a `u64`).
pub type Expected = Box<dyn Fn(u64) -> u64 + Sync>;

/// One kernel argument, in the order the kernel declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// The output buffer (`float*` or `unsigned long long*`).
    Out,
    /// Input buffer `k` (`const float*`), element `i` being
    /// [`reference::input_value`]`(k, i)`.
    Input(u8),
    /// `rows` / `cols` as a 64-bit integer (`size_t` or `long long`).
    Rows64,
    Cols64,
    /// `rows` / `cols` as an `int`.
    Rows32,
    Cols32,
    /// The diagonal a per-diagonal launch works on (`long long`).
    Step,
}

/// The type of the output's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    U64,
}

impl Elem {
    fn words(self) -> usize {
        match self {
            Elem::F32 => 1,
            Elem::U64 => 2,
        }
    }
}

/// How the kernel is launched on a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// One launch of `block`-shaped blocks covering the matrix, x along
    /// columns (or along rows when `x_walks_rows`). With `grid_stride_y`
    /// gridDim.y is capped at 65535 and the kernel must loop.
    Covering { block: Dim2, x_walks_rows: bool, grid_stride_y: bool },
    /// One launch per anti-diagonal `d = 0 .. rows + cols - 2`, a 1D grid
    /// of `block`-thread blocks covering that diagonal.
    PerDiagonal { block: u32 },
}

/// A lab exercise: a kernel for the student to write, and how to judge it.
pub struct Exercise {
    /// Chosen with `--exercise` when a chapter has several.
    pub id: &'static str,
    /// The chapter crate, whose `kernels/<chapter>.cu` holds the solution.
    pub chapter: &'static str,
    pub section: &'static str,
    pub title: &'static str,
    /// The `extern "C" __global__` function looked up in the student's file.
    pub kernel: &'static str,
    /// The file the student copies, relative to the workspace.
    pub starter: &'static str,
    pub args: &'static [Arg],
    /// How many input buffers the kernel reads.
    pub inputs: u8,
    pub elem: Elem,
    pub launch: Launch,
    /// The chapter source's own shapes.
    pub source_shapes: &'static [(u64, u64)],
    /// The shape the timings use.
    pub timing_shape: Shape,
    /// The expected output of a shape, element by element.
    pub expected: fn(Shape) -> Expected,
}

/// Every exercise, in chapter order.
pub fn all() -> impl Iterator<Item = &'static Exercise> {
    BY_CHAPTER.iter().flat_map(|ch| ch.iter())
}

/// The exercises of one chapter.
pub fn exercises_of(chapter: &str) -> Vec<&'static Exercise> {
    all().filter(|e| e.chapter == chapter).collect()
}

/// One shape of the battery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub label: String,
    pub shape: Shape,
}

/// The public battery: the source's shapes, ragged edges, 1x1, 1xN, Nx1, a
/// shape past gridDim.y's limit, and with `large` one past 2^31 elements.
pub fn battery(ex: &Exercise, large: bool) -> Vec<Case> {
    let case = |label: String, rows, cols| Case { label, shape: Shape::new(rows, cols) };
    let mut cases: Vec<Case> =
        ex.source_shapes.iter().map(|&(r, c)| case(format!("the source's {r}x{c}"), r, c)).collect();
    cases.push(case("ragged edges 97x131".into(), 97, 131));
    cases.push(case("ragged edges 1000x33".into(), 1000, 33));
    // Big enough that a race (a missing barrier) has many chances to show.
    cases.push(case("ragged edges 4099x4097".into(), 4099, 4097));
    cases.push(case("1x1".into(), 1, 1));
    cases.push(case("1xN 1x1000".into(), 1, 1000));
    cases.push(case("Nx1 1000x1".into(), 1000, 1));
    match ex.launch {
        Launch::Covering { block, grid_stride_y: true, .. } => {
            // One block row more than gridDim.y can hold: the kernel must loop.
            let rows = (MAX_GRID_Y + 1) * block.y as u64 + 1;
            cases.push(case(format!("{rows}x5, its grid past gridDim.y's limit of {MAX_GRID_Y}"), rows, 5));
        }
        Launch::Covering { x_walks_rows: true, .. } => {
            let cols = MAX_GRID_Y + 8;
            cases.push(case(format!("3x{cols}, more columns than gridDim.y's limit of {MAX_GRID_Y}"), 3, cols));
        }
        _ => {
            let rows = MAX_GRID_Y + 8;
            cases.push(case(format!("{rows}x3, more rows than gridDim.y's limit of {MAX_GRID_Y}"), rows, 3));
        }
    }
    if large {
        cases.push(case("46341x46341, past 2^31 elements".into(), 46341, 46341));
    }
    cases
}

/// The launches a shape takes: (config, the value of [`Arg::Step`]).
pub fn launches(ex: &Exercise, shape: Shape) -> Result<Vec<(LaunchConfig, i64)>> {
    match ex.launch {
        Launch::Covering { block, x_walks_rows, grid_stride_y } => {
            let walked = if x_walks_rows { shape.transposed() } else { shape };
            let cfg = if grid_stride_y {
                LaunchConfig::covering_strided(walked, block)
            } else {
                LaunchConfig::covering(walked, block)
            };
            Ok(vec![(cfg.map_err(|e| anyhow!("{shape} cannot be launched: {e}"))?, 0)])
        }
        Launch::PerDiagonal { block } => {
            let (rows, cols) = (shape.rows, shape.cols);
            Ok((0..rows + cols - 1)
                .map(|d| {
                    let len = d.min(rows - 1) - d.saturating_sub(cols - 1) + 1;
                    let grid = Dim2::new(ceil_div(len, block as u64) as u32, 1);
                    (LaunchConfig { grid, block: Dim2::new(block, 1) }, d as i64)
                })
                .collect())
        }
    }
}

/// What became of one shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    Pass,
    /// Ran to the end, but some element is wrong, unwritten, or some guard
    /// word was overwritten.
    Fail {
        wrong: u64,
        unwritten: u64,
        first_bad: Option<u64>,
        out_of_bounds_before: u64,
        out_of_bounds_after: u64,
    },
    /// A launch was refused.
    LaunchFailed { error: String },
    /// The kernel faulted; the device is unusable for the rest of the run.
    Crashed { error: String },
    /// The kernel did not finish within the watchdog's limit.
    DidNotFinish { seconds: u64 },
    /// Not run: an earlier shape left the device unusable.
    NotRun,
    /// Not run here, and why (not a failure: the shape needs more memory).
    Skipped { reason: String },
}

impl Verdict {
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Pass | Verdict::Skipped { .. })
    }

    /// The kinds of failure this verdict shows, in the words the exercise
    /// files' `// expect:` lines use: `wrong`, `unwritten`, `out of bounds`,
    /// `launch error`, `crashed`, `did not finish`. Empty for a pass.
    pub fn kinds(&self) -> Vec<&'static str> {
        match self {
            Verdict::Pass | Verdict::Skipped { .. } | Verdict::NotRun => Vec::new(),
            Verdict::Fail { wrong, unwritten, out_of_bounds_before, out_of_bounds_after, .. } => {
                let mut k = Vec::new();
                if *wrong > 0 {
                    k.push("wrong");
                }
                if *unwritten > 0 {
                    k.push("unwritten");
                }
                if out_of_bounds_before + out_of_bounds_after > 0 {
                    k.push("out of bounds");
                }
                k
            }
            Verdict::LaunchFailed { .. } => vec!["launch error"],
            Verdict::Crashed { .. } => vec!["crashed"],
            Verdict::DidNotFinish { .. } => vec!["did not finish"],
        }
    }

    /// Whether the device can still be used after this.
    fn device_usable(&self) -> bool {
        !matches!(self, Verdict::Crashed { .. } | Verdict::DidNotFinish { .. } | Verdict::NotRun)
    }

    /// The line's detail, after the label.
    pub fn describe(&self, elements: u64) -> String {
        match self {
            Verdict::Pass => format!("{elements} elements, all match"),
            Verdict::Fail { wrong, unwritten, first_bad, out_of_bounds_before, out_of_bounds_after } => {
                let mut parts = Vec::new();
                if *wrong > 0 {
                    parts.push(format!("{wrong} wrong"));
                }
                if *unwritten > 0 {
                    parts.push(format!("{unwritten} unwritten"));
                }
                if let Some(i) = first_bad {
                    parts.push(format!("first at index {i}"));
                }
                if out_of_bounds_before + out_of_bounds_after > 0 {
                    parts.push(format!(
                        "written out of bounds: {out_of_bounds_before} words before the output, {out_of_bounds_after} after"
                    ));
                }
                format!("{elements} elements: {}", parts.join(", "))
            }
            Verdict::LaunchFailed { error } => format!("launch failed: {error}"),
            Verdict::Crashed { error } => format!("the kernel crashed: {error}"),
            Verdict::DidNotFinish { seconds } => format!("did not finish within {seconds} s (the watchdog stopped it)"),
            Verdict::NotRun => "not run: an earlier shape left the device unusable".into(),
            Verdict::Skipped { reason } => format!("skipped: {reason}"),
        }
    }
}

/// One line of a check.
#[derive(Clone, Debug, Serialize)]
pub struct ShapeResult {
    pub label: String,
    pub rows: u64,
    pub cols: u64,
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl ShapeResult {
    pub fn line(&self) -> String {
        let elements = self.rows * self.cols;
        let word = match &self.verdict {
            Verdict::Skipped { .. } => "skipped".to_string(),
            v => report::flag(v.passed(), if v.passed() { "pass" } else { "FAIL" }),
        };
        format!("  {}: {}: {word}", self.label, self.verdict.describe(elements))
    }
}

/// Timings of the last phase (never asserted).
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub rows: u64,
    pub cols: u64,
    pub repeats: usize,
    pub copy_ms: f32,
    pub yours_ms: f32,
    pub chapter_ms: Option<f32>,
}

/// Everything a check found: what `--json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub exercise: String,
    pub section: String,
    pub kernel: String,
    pub file: String,
    /// `pass`, `fail` or `could not check`.
    pub outcome: String,
    pub exit_code: i32,
    pub device: Option<String>,
    pub compiler: Option<String>,
    /// Why the check could not be made, or why the file failed to compile.
    pub reason: Option<String>,
    pub compile_log: Option<String>,
    pub shapes: Vec<ShapeResult>,
    pub timing: Option<Timing>,
}

/// `check FILE.cu [--large] [--json]`, for a chapter's command line.
#[derive(clap::Args, Clone, Debug)]
pub struct CheckArgs {
    /// The .cu file holding your kernel.
    pub file: PathBuf,
    /// Add a shape past 2^31 elements (needs tens of gigabytes of device memory).
    #[arg(long)]
    pub large: bool,
    /// Print one JSON record instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Which exercise of the chapter, when it has several.
    #[arg(long)]
    pub exercise: Option<String>,
    /// Seconds a shape may run before the watchdog calls it stuck.
    #[arg(long, default_value_t = 60, value_parser = crate::cli::size_in(3600))]
    pub timeout: u64,
}

/// The subcommand every chapter binary from K.2 on offers.
#[derive(clap::Subcommand, Clone, Debug)]
pub enum LabCommand {
    /// Check your own kernel (a .cu file) against this chapter's exercise on the GPU
    Check(CheckArgs),
}

impl LabCommand {
    /// Runs the subcommand for `chapter` and exits with its code.
    pub fn run(&self, chapter: &crate::Chapter) -> ! {
        match self {
            LabCommand::Check(args) => run_check(chapter.id, args),
        }
    }
}

/// Checks the file named in `args` against `chapter`'s exercise, prints
/// the report (or the JSON record) and exits with the check's code.
pub fn run_check(chapter: &str, args: &CheckArgs) -> ! {
    let all = exercises_of(chapter);
    let ex = match &args.exercise {
        Some(id) => all.iter().find(|e| e.id == id).copied().unwrap_or_else(|| {
            let ids: Vec<&str> = all.iter().map(|e| e.id).collect();
            crate::cli::fail(&format!("{chapter} has no exercise '{id}' (it has: {})", ids.join(", ")))
        }),
        None => *all.first().unwrap_or_else(|| crate::cli::fail(&format!("{chapter} has no lab exercise"))),
    };
    let source = crate::cli::or_exit(read_source(&args.file));
    let record = check(ex, args, &source);
    if args.json {
        crate::cli::print(&format!("{}\n", serde_json::to_string(&record).expect("a record serialises")));
    } else {
        crate::cli::print(&render(&record));
    }
    if record.exit_code == COULD_NOT_CHECK {
        eprintln!("error: could not check: {}", record.reason.as_deref().unwrap_or("unknown reason"));
    }
    std::process::exit(record.exit_code)
}

/// The student's file as text, or a one-line reason it is not a source.
pub fn read_source(path: &std::path::Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("{} is not UTF-8 text", path.display()))?;
    if text.contains('\0') {
        return Err(anyhow!("{} holds a NUL byte: it is not CUDA source", path.display()));
    }
    Ok(text)
}

/// The human report of a record.
pub fn render(r: &Record) -> String {
    let mut out = Report::new();
    out.heading(&format!("check of {} against {} exercise '{}' ({})", r.file, r.section, r.exercise, r.kernel));
    if let Some(device) = &r.device {
        out.line(format!("on {device}"));
    }
    if let Some(compiler) = &r.compiler {
        out.line(format!("compiled by {compiler}"));
    }
    if let Some(log) = r.compile_log.as_deref().filter(|l| !l.trim().is_empty()) {
        out.line("the compiler's log:");
        for l in log.lines() {
            out.line(format!("  {l}"));
        }
    }
    for s in &r.shapes {
        out.line(s.line());
    }
    let passed = r.shapes.iter().filter(|s| s.verdict.passed()).count();
    match (r.outcome.as_str(), &r.reason) {
        ("could not check", Some(why)) => out.line(format!("could not check: {why}")),
        (_, Some(why)) => out.line(format!("result: {}: {why}", report::flag(false, "FAIL"))),
        _ => out.line(format!(
            "result: {} of {} shapes pass: {}",
            passed,
            r.shapes.len(),
            report::flag(r.exit_code == 0, if r.exit_code == 0 { "pass" } else { "FAIL" })
        )),
    };
    if let Some(t) = &r.timing {
        out.line(format!(
            "timing on {}x{}, median of {} (timings vary run to run; never asserted):",
            t.rows, t.cols, t.repeats
        ));
        out.line(format!("  device-to-device copy: {:.3} ms", t.copy_ms));
        out.line(format!("  your kernel: {:.3} ms, {:.2}x the copy's time", t.yours_ms, t.yours_ms / t.copy_ms));
        if let Some(c) = t.chapter_ms {
            out.line(format!("  the chapter's kernel: {c:.3} ms, {:.2}x the copy's time", c / t.copy_ms));
        }
    }
    out.into_string()
}

/// Compiles `source` and judges it on the battery. Never panics and never
/// exits, except after a kernel that did not finish: then the device is
/// stuck, so the record is printed and the process exits at once.
pub fn check(ex: &Exercise, args: &CheckArgs, source: &str) -> Record {
    let mut record = Record {
        exercise: ex.id.into(),
        section: ex.section.into(),
        kernel: ex.kernel.into(),
        file: args.file.display().to_string(),
        outcome: "could not check".into(),
        exit_code: COULD_NOT_CHECK,
        device: None,
        compiler: None,
        reason: None,
        compile_log: None,
        shapes: Vec::new(),
        timing: None,
    };
    let nvrtc = match nvrtc::locate() {
        Ok(n) => n,
        Err(why) => {
            record.reason = Some(why.0);
            return record;
        }
    };
    record.compiler = Some(nvrtc.describe());
    let name = args.file.file_name().map_or("kernel.cu".into(), |n| n.to_string_lossy().into_owned());
    let gpu = gpu::open();
    // Without a GPU the file is still compiled, for the oldest architecture
    // the embedded kernels serve, so a compile error is reported anyway.
    let compiled = match &gpu {
        Ok(g) => g.compile(source, &name),
        Err(_) => nvrtc.compile(source, &name, nvrtc::DEFAULT_ARCH),
    };
    let compiled = match compiled {
        Ok(c) => c,
        Err(nvrtc::CompileFailure::Rejected { log }) => {
            record.compile_log = Some(log);
            return fail(record, "the file does not compile (the compiler's log is above)");
        }
        Err(nvrtc::CompileFailure::Failed(why)) => {
            record.reason = Some(why);
            return record;
        }
    };
    record.compile_log = Some(compiled.log.clone());
    record.compiler = Some(format!("{} for {}", nvrtc.describe(), compiled.arch.virtual_name()));
    if !has_entry(&compiled.ptx, ex.kernel) {
        return fail(record, &format!("the file has no kernel `extern \"C\" __global__ void {}(...)`", ex.kernel));
    }
    let gpu = match gpu {
        Ok(g) => g,
        Err(why) => {
            record.reason = Some(format!("no GPU ({why}); the file compiles"));
            return record;
        }
    };
    record.device = Some(format!("{}; {}", gpu.info.describe(), gpu.kernel_path().describe()));
    let function = match gpu.load_ptx(&compiled.ptx).and_then(|m| Ok(m.load_function(ex.kernel)?)) {
        Ok(f) => f,
        Err(e) => return fail(record, &format!("the compiled kernel did not load ({e:#})")),
    };
    let timeout = Duration::from_secs(args.timeout);
    let mut usable = true;
    for case in battery(ex, args.large) {
        let verdict = if usable { run_case(&gpu, &function, ex, case.shape, timeout) } else { Verdict::NotRun };
        usable &= verdict.device_usable();
        let stuck = matches!(verdict, Verdict::DidNotFinish { .. });
        record.shapes.push(ShapeResult { label: case.label, rows: case.shape.rows, cols: case.shape.cols, verdict });
        if stuck {
            // The kernel still runs: nothing on this context can be freed
            // or waited for. Report what is known and leave.
            finish(&mut record);
            if args.json {
                crate::cli::print(&format!("{}\n", serde_json::to_string(&record).expect("a record serialises")));
            } else {
                crate::cli::print(&render(&record));
            }
            std::process::exit(record.exit_code);
        }
    }
    finish(&mut record);
    if record.exit_code == 0 {
        record.timing = time(&gpu, &function, ex).ok();
    }
    record
}

/// Whether PTX defines the entry point `kernel` (unmangled: `extern "C"`).
pub fn has_entry(ptx: &str, kernel: &str) -> bool {
    ptx.lines().any(|l| l.trim_start().starts_with(".visible .entry") && l.contains(&format!(".entry {kernel}(")))
}

fn fail(mut record: Record, why: &str) -> Record {
    record.reason = Some(why.to_string());
    record.outcome = "fail".into();
    record.exit_code = 1;
    record
}

fn finish(record: &mut Record) {
    let ok = record.shapes.iter().all(|s| s.verdict.passed());
    record.outcome = if ok { "pass" } else { "fail" }.into();
    record.exit_code = if ok { 0 } else { 1 };
}

/// Device buffers for one run of the kernel on `shape`.
struct Buffers {
    /// The output with [`GUARD_WORDS`] poisoned words on each side.
    out: gpu::DeviceBuffer<u32>,
    inputs: Vec<gpu::DeviceBuffer<f32>>,
}

fn buffers(gpu: &Gpu, ex: &Exercise, shape: Shape) -> Result<Buffers> {
    let n = shape.elements() as usize;
    let out = gpu.poisoned::<u32>(2 * GUARD_WORDS + n * ex.elem.words())?;
    let inputs = (0..ex.inputs).map(|k| gpu.upload(&input(k, n))).collect::<Result<Vec<_>>>()?;
    Ok(Buffers { out, inputs })
}

/// Input `k` of `n` elements, generated on every core.
fn input(k: u8, n: usize) -> Vec<f32> {
    let mut v = vec![0f32; n];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let chunk = n.div_ceil(threads).max(1 << 16);
    std::thread::scope(|s| {
        for (j, part) in v.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                for (i, x) in part.iter_mut().enumerate() {
                    *x = reference::input_value(k, (j * chunk + i) as u64);
                }
            });
        }
    });
    v
}

/// Queues every launch of `shape`, waiting (under the watchdog) every so
/// often so that a stuck kernel cannot block a full launch queue.
fn enqueue_all(
    gpu: &Gpu,
    f: &Kernel,
    ex: &Exercise,
    shape: Shape,
    bufs: &Buffers,
    timeout: Duration,
) -> std::result::Result<(), Verdict> {
    let out_at = gpu.address(&bufs.out) + 4 * GUARD_WORDS as u64;
    let ins: Vec<u64> = bufs.inputs.iter().map(|b| gpu.address(b)).collect();
    let plan = launches(ex, shape).map_err(|e| Verdict::LaunchFailed { error: format!("{e:#}") })?;
    let (rows, cols) = (shape.rows as i64, shape.cols as i64);
    let (rows32, cols32) = (shape.rows as i32, shape.cols as i32);
    for (n, (cfg, step)) in plan.iter().enumerate() {
        let mut args = gpu.args(f);
        for a in ex.args {
            match a {
                Arg::Out => args.arg(&out_at),
                Arg::Input(k) => args.arg(&ins[*k as usize]),
                Arg::Rows64 => args.arg(&rows),
                Arg::Cols64 => args.arg(&cols),
                Arg::Rows32 => args.arg(&rows32),
                Arg::Cols32 => args.arg(&cols32),
                Arg::Step => args.arg(step),
            };
        }
        gpu.enqueue(args, cfg, 0).map_err(|e| Verdict::LaunchFailed { error: format!("{e:#}") })?;
        if (n + 1) % 256 == 0 || n + 1 == plan.len() {
            wait(gpu, timeout)?;
        }
    }
    Ok(())
}

fn wait(gpu: &Gpu, timeout: Duration) -> std::result::Result<(), Verdict> {
    match gpu.finish_within(timeout) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Verdict::DidNotFinish { seconds: timeout.as_secs() }),
        Err(e) => Err(Verdict::Crashed { error: format!("{e:#}") }),
    }
}

/// Runs the kernel on one shape and judges what it left in memory.
fn run_case(gpu: &Gpu, f: &Kernel, ex: &Exercise, shape: Shape, timeout: Duration) -> Verdict {
    let n = shape.elements();
    let needed = (2 * GUARD_WORDS as u64 + n * ex.elem.words() as u64 + n * ex.inputs as u64) * 4;
    match gpu.free_memory() {
        Ok(free) if (free as u64) < needed + (needed >> 4) => {
            return Verdict::Skipped {
                reason: format!("needs {} MB of device memory, {} MB free", needed >> 20, free >> 20),
            }
        }
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
        Ok(_) => {}
    }
    let bufs = match buffers(gpu, ex, shape) {
        Ok(b) => b,
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
    };
    if let Err(v) = enqueue_all(gpu, f, ex, shape, &bufs, timeout) {
        if let Verdict::LaunchFailed { .. } = v {
            // A refused launch leaves the device usable unless an earlier
            // one faulted; find out which.
            if let Err(crash) = wait(gpu, timeout) {
                return crash;
            }
        }
        return v;
    }
    let words = match gpu.download(&bufs.out) {
        Ok(w) => w,
        Err(e) => return Verdict::Crashed { error: format!("{e:#}") },
    };
    judge(&words, ex.elem, &(ex.expected)(shape))
}

/// Judges a downloaded output with its guards: every guard word must still
/// be poison, and every element must match `expected`.
pub fn judge(words: &[u32], elem: Elem, expected: &Expected) -> Verdict {
    let (before, rest) = words.split_at(GUARD_WORDS);
    let (body, after) = rest.split_at(rest.len() - GUARD_WORDS);
    let touched = |g: &[u32]| g.iter().filter(|&&w| w != POISON_WORD).count() as u64;
    let a = match elem {
        Elem::F32 => gpu::compare_with(body, |i| expected(i as u64) as u32),
        Elem::U64 => {
            let pairs: Vec<u64> = body.chunks_exact(2).map(|p| p[0] as u64 | (p[1] as u64) << 32).collect();
            gpu::compare_with(&pairs, |i| expected(i as u64))
        }
    };
    let (oob_before, oob_after) = (touched(before), touched(after));
    if a.ok() && oob_before + oob_after == 0 {
        return Verdict::Pass;
    }
    Verdict::Fail {
        wrong: a.mismatched as u64,
        unwritten: a.unwritten as u64,
        first_bad: a.first_bad.map(|i| i as u64),
        out_of_bounds_before: oob_before,
        out_of_bounds_after: oob_after,
    }
}

/// Times the student's kernel, the chapter's and a device copy on the
/// exercise's timing shape, in the same run.
fn time(gpu: &Gpu, yours: &Kernel, ex: &Exercise) -> Result<Timing> {
    crate::cli::warn_if_debug("timings");
    let shape = ex.timing_shape;
    let bufs = buffers(gpu, ex, shape)?;
    let no_limit = Duration::from_secs(600);
    let run = |f: &Kernel| -> Result<f32> {
        gpu.timed(|| enqueue_all(gpu, f, ex, shape, &bufs, no_limit).map_err(|v| anyhow!("{}", v.describe(0))))
    };
    let words = shape.elements() as usize * ex.elem.words();
    let src = gpu.poisoned::<u32>(words)?;
    let mut dst = gpu.poisoned::<u32>(words)?;
    let copy_ms = gpu::median_ms(TIMING_REPEATS, || gpu.copy_ms(&src, &mut dst))?;
    let yours_ms = gpu::median_ms(TIMING_REPEATS, || run(yours))?;
    let chapter_ms = match gpu.function(ex.chapter, ex.kernel) {
        Ok(f) => Some(gpu::median_ms(TIMING_REPEATS, || run(&f))?),
        Err(_) => None,
    };
    Ok(Timing { rows: shape.rows, cols: shape.cols, repeats: TIMING_REPEATS, copy_ms, yours_ms, chapter_ms })
}

#[cfg(test)]
mod tests;
