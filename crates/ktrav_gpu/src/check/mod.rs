//! `check FILE.cu`: a student's own kernel, compiled at run time with NVRTC,
//! launched on the battery of its exercise (`ktrav::lab`) and judged there.
//!
//! A chapter binary offers `check FILE.cu [--large] [--json] [--sanitize]`
//! by embedding [`LabCommand`] as a clap subcommand. For every shape the
//! output buffer is poisoned and surrounded by poisoned guard words, and
//! the inputs are read back afterwards; a launch error, a crash, a kernel
//! that never finishes and one that writes its input are verdicts too.
//! Shapes run in worker processes ([`worker`]), a fresh one after any shape
//! that crashes or hangs, so such a shape leaves the others checked. Only when every shape passes
//! is the kernel timed beside a device copy and the chapter's own kernel
//! ([`timing`]; never asserted).

pub mod lock;
pub mod neighbours;
pub mod run;
pub mod sanitize;
pub mod timing;
pub mod worker;

use crate::nvrtc;
use crate::runner::{self as gpu, Gpu, Kernel};
use ktrav::lab::{
    battery, hidden_battery, read_source, render, seed_from, seed_from_file, Battery, Case, Exercise, NotRunCause,
    Printed, Record, ShapeResult, Verdict, COULD_NOT_CHECK, SEED_ENV,
};
use ktrav::{Chapter, Shape};
use ktrav_term::cli::{print, usage, Exit};
use run::Fit;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use worker::{Limits, Outcome, Submitted, Task};

/// `check FILE.cu [--large] [--json] [--sanitize[=TOOLS]]`, for a chapter's command line.
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
    #[arg(long, default_value_t = 60, value_parser = ktrav_term::cli::size_in(3600))]
    pub timeout: u64,
    /// Also run the small shapes under compute-sanitizer: memcheck and racecheck, or the tools named (comma separated).
    #[arg(long, value_name = "TOOLS", num_args = 0..=1, require_equals = true, default_missing_value = sanitize::ALL_TOOLS, value_parser = sanitize::parse_tools)]
    pub sanitize: Option<sanitize::Tools>,
    /// Also run the hidden battery drawn from this seed (or from KTRAV_LAB_SEED when set).
    #[arg(long, value_parser = ktrav_term::cli::seed)]
    pub seed: Option<u64>,
    /// Read the hidden battery's seed from this file, which only its owner may read (mode 600): how a grader keeps the seed off the command line.
    #[arg(long, value_name = "FILE", conflicts_with = "seed")]
    pub seed_file: Option<PathBuf>,
    /// Report each hidden shape as pass or fail only, as a course's grader does (needs a seed).
    #[arg(long)]
    pub private: bool,
    /// Only compile the file and check its kernel's name and parameters (NVRTC, no GPU needed).
    #[arg(long, conflicts_with_all = ["large", "sanitize", "seed", "private"])]
    pub compile_only: bool,
}

/// The subcommand every chapter binary from K.2 on offers.
#[derive(clap::Subcommand, Clone, Debug)]
pub enum LabCommand {
    /// Check your own kernel (a .cu file) against this chapter's exercise on the GPU
    Check(CheckArgs),
    /// The shapes of a check, in a worker process (started by `check`)
    #[command(name = "check-worker", hide = true)]
    CheckWorker { job: PathBuf },
}

impl LabCommand {
    /// Runs the subcommand for `chapter` and returns its exit code.
    pub fn run(&self, chapter: &Chapter) -> Result<i32, Exit> {
        match self {
            LabCommand::Check(args) => {
                worker::isolate_with_this_binary();
                run_check(chapter, args)
            }
            LabCommand::CheckWorker { job } => worker::serve(&[chapter], job),
        }
    }
}

/// Checks the file named in `args` against `chapter`'s exercise, prints
/// the report (or the JSON record) and returns the check's exit code; bad
/// input is [`Exit::Usage`], refused before anything is compiled.
pub fn run_check(chapter: &Chapter, args: &CheckArgs) -> Result<i32, Exit> {
    let all = chapter.exercises;
    let ex = match &args.exercise {
        Some(id) => all.iter().find(|e| e.id == id).ok_or_else(|| {
            let ids: Vec<&str> = all.iter().map(|e| e.id).collect();
            Exit::Usage(format!("{} has no exercise '{id}' (it has: {})", chapter.id, ids.join(", ")))
        })?,
        None => all.first().ok_or_else(|| Exit::Usage(format!("{} has no lab exercise", chapter.id)))?,
    };
    let flag = match &args.seed_file {
        Some(path) => Some(usage(seed_from_file(path))?),
        None => args.seed,
    };
    let seed = usage(seed_from(flag))?;
    if args.private && seed.is_none() {
        return Err(Exit::Usage(format!(
            "--private needs a hidden battery: give --seed N, --seed-file FILE or set {SEED_ENV}"
        )));
    }
    let source = usage(read_source(&args.file))?;
    let record = check_seeded(chapter, ex, args, &source, seed);
    print_record(&record, args.json)?;
    Ok(record.exit_code)
}

/// Prints the report, or the JSON record. A check that could not be made
/// says so once: in the report, or beside the record on stderr.
fn print_record(record: &Record, json: bool) -> Result<(), Exit> {
    if json {
        print(&format!("{}\n", serde_json::to_string(record).expect("a record serialises")))?;
        if record.exit_code == COULD_NOT_CHECK {
            eprintln!("error: could not check: {}", record.reason.as_deref().unwrap_or("unknown reason"));
        }
        Ok(())
    } else {
        print(&render(record))
    }
}

/// How the reason of a file refused for its includes begins.
pub const REFUSED: &str = "refused before compiling:";

/// After a shape did not finish (twice), the rest of the battery shares
/// this much time: an endless loop gets its verdict within two full
/// `--timeout`s and this, however many shapes remain.
pub const AFTER_A_HANG: Duration = Duration::from_secs(30);

/// The kernel's limit on a shape after a hang: what the shape needs, with
/// room to spare, rather than the full `--timeout`. Its bytes at 1 GB/s
/// (a thousandth of what the exercises' kernels reach), 5 ms a launch,
/// and a second.
pub fn patience_after_a_hang(ex: &Exercise, case: &Case) -> Duration {
    let bytes = ktrav::lab::device_bytes(ex, case.shape);
    let launches = ktrav::lab::case_launches(ex, case).map_or(1, |p| p.len()) as u64;
    Duration::from_secs(1) + Duration::from_nanos(bytes) + Duration::from_millis(5 * launches)
}

/// Why a check or a worker has no kernel to run: the file did not compile,
/// or what the compiler made did not load. Each says so in one line.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// NVRTC refused the file or could not run.
    #[error(transparent)]
    Compile(#[from] nvrtc::CompileFailure),
    /// The driver refused the module, or it has no entry of that name.
    #[error("the compiled kernel did not load ({0:#})")]
    Load(anyhow::Error),
}

/// Compiles `source` for `gpu` and loads the kernel `ex` looks up: the one
/// way both the check and its workers get a kernel.
pub(crate) fn compile_and_load(gpu: &Gpu, ex: &Exercise, source: &str, name: &str) -> Result<Kernel, LoadError> {
    let compiled = gpu.compile(source, name)?;
    entry(gpu.load_compiled(&compiled), ex)
}

/// The kernel of `ex` from a module the driver loaded, or why not.
fn entry(
    module: anyhow::Result<std::sync::Arc<cudarc::driver::CudaModule>>,
    ex: &Exercise,
) -> Result<Kernel, LoadError> {
    module.and_then(|m| Ok(m.load_function(ex.kernel)?)).map_err(LoadError::Load)
}

/// Loads the kernel of `ex` from machine code the supervisor compiled.
pub(crate) fn load_machine_code(gpu: &Gpu, ex: &Exercise, cubin: &[u8]) -> Result<Kernel, LoadError> {
    entry(gpu.load_cubin(cubin), ex)
}

/// Compiles `source` and judges it on the battery of `ex`, one of
/// `chapter`'s exercises. Never panics and never exits. When the shapes
/// run in this process (no [`worker::isolate_with`]) and a kernel does not
/// finish, the device is stuck: the check stops at that shape, leaves the
/// context to the end of the process, unfreed, and returns the record of
/// the shapes so far; a command prints it and ends.
pub fn check(chapter: &Chapter, ex: &Exercise, args: &CheckArgs, source: &str) -> Record {
    check_seeded(chapter, ex, args, source, args.seed)
}

/// [`check`] on the public battery, then the hidden one drawn from `seed`
/// when there is one (reported as pass or fail only with `args.private`).
pub fn check_seeded(chapter: &Chapter, ex: &Exercise, args: &CheckArgs, source: &str, seed: Option<u64>) -> Record {
    let mut cases = battery(ex, args.large);
    if let Some(seed) = seed {
        cases.extend(hidden_battery(ex, seed, args.large));
    }
    let mut record = check_on(chapter, ex, args, source, cases);
    record.seed = seed;
    if args.private && seed.is_some() {
        make_private(&mut record);
    }
    record
}

/// A private record: each hidden shape reported by its number and pass or
/// fail only, and nothing the kernel printed on one kept.
fn make_private(record: &mut Record) {
    record.private = true;
    let mut n = 0;
    for s in &mut record.shapes {
        if s.battery == Battery::Hidden {
            n += 1;
            *s = s.clone().private(n);
        }
    }
    // What a kernel printed on a hidden shape could tell the shape: only
    // what was printed on a public one is kept.
    record.printed.retain(|p| p.battery == Some(Battery::Public));
}

/// [`check`] on the given cases (the public battery, the hidden one, or both).
pub fn check_on(chapter: &Chapter, ex: &Exercise, args: &CheckArgs, source: &str, cases: Vec<Case>) -> Record {
    let mut record = Record::new(chapter.section, ex, args.file.display().to_string());
    // The file's includes are judged before anything else: a file that
    // reaches for one it may not is refused whether or not it could be
    // compiled here, and the compiler never sees it.
    if let Err(why) = ktrav::lab::includes::check(source) {
        return record.fail(&format!("{REFUSED} {why}"));
    }
    let gpu = if args.compile_only {
        Err(crate::probe::Unavailable("only compiling (--compile-only)".into()))
    } else {
        gpu::open()
    };
    let nvrtc = match nvrtc::locate() {
        Ok(n) => n,
        Err(why) => {
            record.reason = Some(nvrtc_missing(args, &gpu, why));
            return record;
        }
    };
    // A private check is a course's: the grader's library folders are
    // nothing its students should read.
    let compiler = if args.private { nvrtc.version_line() } else { nvrtc.describe() };
    record.compiler = Some(compiler.clone());
    let name = args.file.file_name().map_or("kernel.cu".into(), |n| n.to_string_lossy().into_owned());
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
            return record.fail(ktrav::lab::DOES_NOT_COMPILE);
        }
        Err(nvrtc::CompileFailure::Failed(why)) => {
            record.reason = Some(why);
            return record;
        }
    };
    record.compile_log = Some(compiled.log.clone());
    record.compiler = Some(format!("{} for {}; {}", compiler, compiled.code(), nvrtc::HEADERS));
    if let Err(why) = crate::hints::check_entry(&compiled.ptx, ex) {
        return record.fail(&format!("{why:#}"));
    }
    if args.compile_only {
        record.compiled_only();
        return record;
    }
    let gpu = match gpu {
        Ok(g) => g,
        Err(why) => {
            // A private check's record goes to students: the grader's
            // library folders stay out of it.
            let why = if args.private { "no GPU".to_string() } else { format!("no GPU ({why})") };
            record.reason = Some(format!("{why}; the file compiles, and its kernel's name and parameters match"));
            return record;
        }
    };
    let file = Submitted { chapter, ex, name: &name, source, cubin: compiled.cubin.as_deref() };
    check_loaded(record, args, &file, gpu, &compiled, &cases)
}

/// Why a check cannot compile without NVRTC: `why` it is missing (in a
/// private check only that it is), after the missing GPU when there is
/// none and the check is to run.
fn nvrtc_missing(
    args: &CheckArgs,
    gpu: &Result<Gpu, crate::probe::Unavailable>,
    why: crate::probe::Unavailable,
) -> String {
    let missing = if args.private {
        "NVRTC is missing on the grading machine (its doctor says where it looked)".into()
    } else {
        why.0
    };
    match gpu {
        // Without a GPU nothing would run: say that first.
        Err(no_gpu) if !args.compile_only => {
            let no_gpu = if args.private { "no GPU".to_string() } else { format!("no GPU ({no_gpu})") };
            format!("{no_gpu}; and to compile the file (--compile-only): {missing}")
        }
        _ => missing,
    }
}

/// The rest of [`check_on`] once the file compiled and a GPU is open: the
/// kernel loaded, every case run, the sanitizers when asked for, and the
/// timing of a file that passed.
fn check_loaded(
    mut record: Record,
    args: &CheckArgs,
    file: &Submitted,
    gpu: Gpu,
    compiled: &nvrtc::Compiled,
    cases: &[Case],
) -> Record {
    let ex = file.ex;
    record.device = Some(match args.private {
        true => gpu.info.describe(),
        false => format!("{}; {}", gpu.info.describe(), gpu.kernel_path().describe()),
    });
    record.notes.extend(timing::device_note(&gpu));
    let function = match entry(gpu.load_compiled(compiled), ex) {
        Ok(f) => f,
        Err(why) => return record.fail(&why.to_string()),
    };
    let entry = crate::hints::find_entry(&compiled.ptx, ex.kernel).ok();
    record.resources = crate::hints::function_limits(&gpu, &function, entry.as_ref()).ok().map(|l| l.describe());
    let timeout = Duration::from_secs(args.timeout);
    match worker::launcher() {
        Some(launcher) => {
            if let Err(MachineBusy(busy)) = shapes_in_workers(&mut record, launcher, file, cases, timeout) {
                record.could_not_check(&busy);
                return record;
            }
        }
        None => {
            if let Err(Stuck) = in_process(&mut record, &gpu, &function, ex, cases, timeout) {
                // The kernel still runs: nothing on this context can be
                // freed or waited for, so none of it is dropped.
                std::mem::forget(function);
                std::mem::forget(gpu);
                record.finish();
                return record;
            }
        }
    }
    if let Some(tools) = &args.sanitize {
        sanitize_shapes(&mut record, file, cases, tools, timeout);
    }
    record.finish();
    if record.exit_code == 0 {
        ktrav_term::cli::warn_if_debug("timings");
        let timed = match worker::launcher() {
            Some(launcher) => time_in_worker(&mut record, launcher, file, timeout),
            None => time_in_process(&gpu, &function, file, timeout),
        };
        match timed {
            TimingRun::SkippedWork(skipped) => {
                return record.fail(&format!("the timing found the output wrong: {skipped}"))
            }
            TimingRun::Done(t) => {
                let impossible = t.impossible.clone();
                record.timing = Some(*t);
                if let Some(why) = impossible {
                    record = record.fail(&format!("the timing is impossible: {why}"));
                }
            }
            TimingRun::NotTaken(why) => record.notes.push(format!("not timed: {why}")),
        }
    }
    record
}

/// What timing a file that passed came to.
enum TimingRun {
    /// The timing, the file's and its yardsticks'.
    Done(Box<ktrav::lab::Timing>),
    /// No timing, and why: a failure of the run, not of the kernel.
    NotTaken(String),
    /// A timed run of the kernel left the output wrong: what the judge
    /// found. The check fails.
    SkippedWork(String),
}

/// Times the file in a worker (run once more when the machine stopped it),
/// keeping what the kernel printed.
fn time_in_worker(record: &mut Record, launcher: &worker::Launcher, file: &Submitted, timeout: Duration) -> TimingRun {
    let shape = file.ex.timing_shape;
    let task = Task::Timing { rows: shape.rows, cols: shape.cols };
    // Every repeat of every kernel waits on this watchdog.
    let limit = timeout * (2 * ktrav::lab::TIMING_REPEATS as u32 + 2);
    let supervise =
        || worker::supervise(launcher, worker::job(file, task, timeout), "the timing run", None, Limits::kernel(limit));
    let mut ran = supervise();
    if ran.machine_too_busy().is_some() {
        ran = supervise();
    }
    // The timing shape is the exercise's own, told to every student.
    keep_printed(record, Battery::Public, ran.printed.clone());
    match ran.outcome {
        Some(Outcome::Timing(t)) => TimingRun::Done(t),
        Some(Outcome::SkippedWork(why)) => TimingRun::SkippedWork(why),
        Some(Outcome::Failed(why)) => TimingRun::NotTaken(why),
        _ if ran.timed_out() => {
            TimingRun::NotTaken(format!("the timing run did not finish within {} s", limit.as_secs()))
        }
        _ => TimingRun::NotTaken(ran.machine_too_busy().unwrap_or_else(|| ran.ended_without_verdict())),
    }
}

/// Times the file in this process, beside the chapter's kernel.
fn time_in_process(gpu: &Gpu, function: &Kernel, file: &Submitted, timeout: Duration) -> TimingRun {
    let ex = file.ex;
    let theirs = gpu.function(file.chapter.id, ex.kernel).ok();
    match timing::time(gpu, function, theirs.as_ref(), ex, ex.timing_shape, timeout) {
        Ok(t) => TimingRun::Done(Box::new(t)),
        Err(e) => match e.downcast_ref::<timing::SkippedWork>() {
            Some(skipped) => TimingRun::SkippedWork(skipped.to_string()),
            None => TimingRun::NotTaken(format!("{e:#}")),
        },
    }
}

/// The machine stopped a shape's worker twice (too slow to start, or to
/// judge): the check cannot be made, and the line says why.
struct MachineBusy(String);

/// The task that runs `case` in a worker, its buffers guarded.
fn shape_task(case: &Case) -> Task {
    Task::Shape { rows: case.shape.rows, cols: case.shape.cols, grid_y_cap: case.grid_y_cap, fit: Fit::Guarded }
}

/// Runs every case in workers and pushes its verdict. One worker takes the
/// shapes of one battery in turn, each with the kernel loaded afresh and
/// buffers of its own, until a shape leaves the worker's context in doubt
/// ([`worker::goes_on_after`]); the next shape starts a fresh worker. A
/// worker that stopped on a shape (a crash, the watchdog) leaves that shape
/// to a worker of its own, as below, where a run that did not finish counts
/// as its first.
///
/// A shape whose worker the machine stopped (too slow to start, or to
/// judge) is run again; twice stopped, the check cannot be made: `Err`
/// says why. A shape that did not finish is run again too, with the full
/// `--timeout`, since a shared GPU can stall a right kernel once; a second
/// time it is the verdict, and the rest of the battery shares
/// [`AFTER_A_HANG`], each shape in a worker of its own held to what it
/// needs ([`patience_after_a_hang`]), those past that time not run.
fn shapes_in_workers(
    record: &mut Record,
    launcher: &worker::Launcher,
    file: &Submitted,
    cases: &[Case],
    timeout: Duration,
) -> Result<(), MachineBusy> {
    let mut hung: Option<Instant> = None;
    let mut at = 0;
    while at < cases.len() {
        // A run of the shape at `at` that did not finish, from a worker
        // that was on it.
        let mut first = None;
        let batch = cases[at..].iter().take_while(|c| c.battery == cases[at].battery).count();
        if hung.is_none() && batch > 1 {
            let (done, stopped) = batch_in_worker(record, launcher, file, &cases[at..at + batch], timeout);
            at += done;
            match stopped {
                // Every task done, or a verdict that ends a worker: what is
                // left goes to a fresh one.
                None => continue,
                // The shape the worker was on: a run that did not finish,
                // or that the machine stopped, counts as its first; after a
                // crash it is run again in a worker of its own.
                Some(stopped) => first = Some(stopped).filter(|r| r.timed_out() || r.machine_too_busy().is_some()),
            }
        }
        let case = &cases[at];
        at += 1;
        let limit = match hung {
            None => timeout,
            // A shape starts only if its whole limit fits in what is left.
            Some(since) => {
                let left = AFTER_A_HANG.saturating_sub(since.elapsed());
                let needs = patience_after_a_hang(file.ex, case);
                if needs > left {
                    push(record, case, Verdict::NotRun { cause: NotRunCause::NoTimeLeft });
                    continue;
                }
                needs
            }
        };
        let ran = alone_in_worker(launcher, file, case, limit, timeout, first, &mut hung);
        if let Some(busy) = ran.machine_too_busy() {
            return Err(MachineBusy(format!(
                "{busy} (on {}); nothing is wrong with the kernel as far as the check got: run it again",
                case.label
            )));
        }
        keep_printed(record, case.battery, ran.printed.clone());
        push(record, case, ran.verdict(limit));
    }
    Ok(())
}

/// Runs `batch`, shapes of one battery, in one worker and pushes the
/// verdict of each it finished: returns how many, and how the worker ended
/// when it stopped on a shape.
fn batch_in_worker(
    record: &mut Record,
    launcher: &worker::Launcher,
    file: &Submitted,
    batch: &[Case],
    timeout: Duration,
) -> (usize, Option<worker::Ran>) {
    let labels: Vec<String> = batch.iter().map(|c| c.label.clone()).collect();
    let ran = worker::supervise_batch(
        launcher,
        worker::job_of(file, batch.iter().map(shape_task).collect(), timeout),
        &labels,
        Limits::kernel(timeout),
    );
    let done = ran.done.len();
    for (c, (outcome, printed)) in batch.iter().zip(ran.done) {
        keep_printed(record, c.battery, printed);
        push(record, c, worker::verdict_of(outcome));
    }
    (done, ran.stopped)
}

/// Runs `case` in a worker of its own within `limit`, or takes `first` as
/// its first run; a run the machine stopped is run once more, and, before
/// any hang, a run that did not finish is run again within the full
/// `timeout`, a second hang marking `hung`.
fn alone_in_worker(
    launcher: &worker::Launcher,
    file: &Submitted,
    case: &Case,
    limit: Duration,
    timeout: Duration,
    first: Option<worker::Ran>,
    hung: &mut Option<Instant>,
) -> worker::Ran {
    let task = shape_task(case);
    let supervise = |limit: Duration| {
        worker::supervise(launcher, worker::job(file, task, limit), &case.label, None, Limits::kernel(limit))
    };
    let run = |limit: Duration| {
        let ran = supervise(limit);
        match ran.machine_too_busy() {
            Some(_) => supervise(limit),
            None => ran,
        }
    };
    // A first run the machine stopped gets the one more run that `run`
    // would have given it.
    let mut ran = match first {
        Some(busy) if busy.machine_too_busy().is_some() => supervise(limit),
        Some(unfinished) => unfinished,
        None => run(limit),
    };
    if hung.is_none() && ran.timed_out() {
        ran = run(timeout);
        if ran.timed_out() {
            *hung = Some(Instant::now());
        }
    }
    ran
}

fn push(record: &mut Record, case: &Case, verdict: Verdict) {
    record.shapes.push(ShapeResult {
        label: case.label.clone(),
        rows: case.shape.rows,
        cols: case.shape.cols,
        verdict,
        battery: case.battery,
        purpose: case.purpose,
    });
}

/// Keeps what the kernel printed on a shape of `battery`, tied to it.
fn keep_printed(record: &mut Record, battery: Battery, printed: Printed) {
    if !printed.is_empty() {
        record.printed.push(Printed { battery: Some(battery), ..printed });
    }
}

/// A kernel run in this process did not finish: the device is stuck.
struct Stuck;

/// The shapes run in this process, one after another: a crash leaves the
/// rest not run, and a kernel that never finishes ends the battery there
/// (`Err`).
fn in_process(
    record: &mut Record,
    gpu: &Gpu,
    function: &Kernel,
    ex: &Exercise,
    cases: &[Case],
    timeout: Duration,
) -> Result<(), Stuck> {
    let mut usable = true;
    for case in cases {
        let verdict = if usable {
            run::run_case(gpu, function, ex, case, timeout, Fit::Guarded)
        } else {
            Verdict::NotRun { cause: NotRunCause::DeviceUnusable }
        };
        usable &= verdict.device_usable();
        let stuck = matches!(verdict, Verdict::DidNotFinish { .. });
        push(record, case, verdict);
        if stuck {
            return Err(Stuck);
        }
    }
    Ok(())
}

/// `--sanitize`: every public shape of at most [`sanitize::MAX_ELEMENTS`] elements,
/// under each tool, in a worker started under compute-sanitizer, which
/// compiles the file itself so the tool sees the module loaded.
fn sanitize_shapes(record: &mut Record, file: &Submitted, cases: &[Case], tools: &sanitize::Tools, timeout: Duration) {
    let file = &Submitted { cubin: None, ..*file };
    let ex = file.ex;
    let Some(program) = sanitize::locate() else {
        record.notes.push(sanitize::missing());
        return;
    };
    let Some(launcher) = worker::launcher() else {
        record.notes.push("--sanitize needs the check's worker processes, which this program does not start".into());
        return;
    };
    for &tool in &tools.0 {
        for case in
            cases.iter().filter(|c| c.battery == Battery::Public && c.shape.elements() <= sanitize::MAX_ELEMENTS)
        {
            // Every buffer exactly its size: memcheck sees any stray access.
            let task = Task::Shape {
                rows: case.shape.rows,
                cols: case.shape.cols,
                grid_y_cap: case.grid_y_cap,
                fit: Fit::Exact,
            };
            let label = format!("{tool} on {}", case.label);
            let args = sanitize::arguments(tool);
            let limits = Limits::kernel(timeout);
            // A run that did not end cleanly is tried again, once.
            let mut ran =
                worker::supervise(launcher, worker::job(file, task, timeout), &label, Some((&program, &args)), limits);
            for _ in 1..sanitize::ATTEMPTS {
                if ran.timed_out() || sanitize::target_ended_cleanly(&ran.sanitizer) {
                    break;
                }
                ran = worker::supervise(
                    launcher,
                    worker::job(file, task, timeout),
                    &label,
                    Some((&program, &args)),
                    limits,
                );
            }
            let verdict = match sanitize::verdict(tool, &ran.sanitizer) {
                _ if ran.timed_out() => Verdict::DidNotFinish { seconds: timeout.as_secs() },
                _ if ran.machine_too_busy().is_some() => {
                    Verdict::Skipped { reason: ran.machine_too_busy().unwrap_or_default() }
                }
                Some(Verdict::Sanitizer { tool, errors, first }) => {
                    Verdict::Sanitizer { tool, errors, first: sanitize::name_the_kernel(&first, ex.kernel) }
                }
                Some(v) => v,
                None => Verdict::Skipped {
                    reason: format!(
                        "{} gave no summary ({}{})",
                        sanitize::PROGRAM,
                        ran.status,
                        ran.sanitizer
                            .first()
                            .map_or(String::new(), |l| format!(": {}", l.trim_start_matches('=').trim()))
                    ),
                },
            };
            record.sanitize.push(ShapeResult {
                label,
                rows: case.shape.rows,
                cols: case.shape.cols,
                verdict,
                battery: case.battery,
                purpose: case.purpose,
            });
        }
    }
}

/// Whether PTX defines the entry point `kernel` (unmangled: `extern "C"`),
/// as the hints' reader of entries finds them.
pub fn has_entry(ptx: &str, kernel: &str) -> bool {
    crate::hints::entries(ptx).iter().any(|e| e.name == kernel)
}

/// Times `kernel` (compiled or embedded) on `shape` as the check times a
/// student's: for comparing the check's timings with a chapter's ladder.
pub fn time_on(gpu: &Gpu, kernel: &Kernel, ex: &Exercise, shape: Shape) -> anyhow::Result<ktrav::lab::Timing> {
    timing::time(gpu, kernel, None, ex, shape, Duration::from_secs(600))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::{Twin, Twins};
    use ktrav::lab::{input_value, Arg, CheckOutcome, Elem, Launch};
    use ktrav::Dim2;

    fn args(file: &str) -> CheckArgs {
        CheckArgs {
            file: PathBuf::from(file),
            large: false,
            json: false,
            exercise: None,
            timeout: 60,
            sanitize: None,
            seed: None,
            seed_file: None,
            private: false,
            compile_only: false,
        }
    }

    const NOTHING: Twin =
        Twin { name: "nothing", steps: 1, barriers_after: &[], shared_words: 0, body: |_, _, _, _| {} };

    /// The test's own exercise, a 2D copy, and a chapter to hold it.
    const COPY: Exercise = Exercise {
        id: "test-copy",
        title: "a copy",
        kernel: "test_copy",
        starter: "copy.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
        source_shapes: || vec![Shape::new(5, 7)],
        chapter_shapes: Vec::new,
        timing_shape: Shape::new(256, 256),
        expected: |_| Box::new(|i| input_value(0, i).to_bits() as u64),
        twins: Twins { solution: NOTHING, wrong: &[] },
    };

    const CHAPTER: Chapter = Chapter {
        id: "k9_test",
        section: "K.9",
        title: "a test chapter",
        report: Vec::new,
        shown_outputs: Vec::new,
        figures: Vec::new,
        kernel_source: None,
        values: Vec::new,
        gpu: None,
        exercises: &[COPY],
        sim_exercises: &[],
        versions: &[],
    };

    const SOLUTION: &str = "extern \"C\" __global__ void test_copy(float* out, const float* in, size_t rows, size_t cols) {
        const size_t r = (size_t)blockIdx.y * blockDim.y + threadIdx.y, c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (r < rows && c < cols) out[r * cols + c] = in[r * cols + c];
    }";

    /// A private record keeps what the kernel printed on a public shape and
    /// on the timing run, and drops what it printed on a hidden shape, or on
    /// a shape no case claimed.
    #[test]
    fn a_private_record_keeps_no_output_of_a_hidden_shape() {
        let mut record = Record::new(CHAPTER.section, &COPY, "k.cu".into());
        let mut cases = battery(&COPY, false);
        cases.extend(hidden_battery(&COPY, 7, false));
        let (public, hidden) = (&cases[0], cases.iter().find(|c| c.battery == Battery::Hidden).unwrap());
        for case in [public, hidden] {
            push(&mut record, case, Verdict::Pass);
            keep_printed(&mut record, case.battery, Printed::of(&case.label, "a line"));
        }
        keep_printed(&mut record, Battery::Public, Printed::of("the timing run", "a line"));
        record.printed.push(Printed::of("a shape of no case", "a line"));
        make_private(&mut record);
        let kept: Vec<&str> = record.printed.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(kept, [public.label.as_str(), "the timing run"]);
        assert_eq!(record.shapes[1].label, "hidden shape 1");
        assert_eq!(record.shapes[1].purpose, hidden.purpose);
    }

    #[test]
    fn entries_are_found_only_when_defined() {
        let ptx = ".visible .entry copy_x_to_col(\n.param .u64 a\n)\n{\n}\n\
                   .visible .entry copy_x_to_colour(\n.param .u64 a\n)\n{\n}\n\
                   .func helper(\n.param .u64 a\n)\n{\n}";
        assert!(has_entry(ptx, "copy_x_to_col") && has_entry(ptx, "copy_x_to_colour"));
        assert!(!has_entry(ptx, "copy_x") && !has_entry(ptx, "helper"));
    }

    /// The check itself, end to end: on this machine without a GPU it compiles
    /// and stops with "could not check"; with a GPU the solution passes.
    #[test]
    fn a_check_compiles_first_and_says_why_it_could_not_check() {
        let Some(_) = nvrtc::for_tests() else { return };
        let r = check(&CHAPTER, &COPY, &args("solution.cu"), SOLUTION);
        assert_eq!((r.exercise.as_str(), r.section.as_str(), r.kernel.as_str()), ("test-copy", "K.9", "test_copy"));
        match gpu::open() {
            Ok(_) => assert_eq!((r.outcome, r.exit_code), (CheckOutcome::Pass, 0), "{}", render(&r)),
            Err(_) => {
                assert_eq!((r.outcome, r.exit_code), (CheckOutcome::CouldNotCheck, COULD_NOT_CHECK));
                assert!(r.reason.as_deref().unwrap().contains("the file compiles"), "{:?}", r.reason);
                assert!(r.shapes.is_empty() && r.compiler.as_deref().unwrap().contains("for sm_80 machine code"));
            }
        }
        let broken = check(&CHAPTER, &COPY, &args("broken.cu"), "extern \"C\" __global__ void test_copy() { nope; }");
        assert_eq!((broken.outcome, broken.exit_code), (CheckOutcome::Fail, 1));
        assert!(broken.compile_log.as_deref().unwrap().contains("broken.cu"));
        assert!(render(&broken).contains("the file does not compile"));
        let other = check(&CHAPTER, &COPY, &args("other.cu"), "extern \"C\" __global__ void copy(float* o) { }");
        assert_eq!(other.exit_code, 1);
        assert!(other.reason.as_deref().unwrap().contains("no kernel `extern \"C\" __global__ void test_copy"));
        let mangled = check(&CHAPTER, &COPY, &args("mangled.cu"), &SOLUTION.replace("extern \"C\" ", ""));
        assert!(mangled.reason.as_deref().unwrap().starts_with("`extern \"C\"` is missing"), "{:?}", mangled.reason);
        let wide = check(&CHAPTER, &COPY, &args("wide.cu"), &SOLUTION.replace("size_t rows", "int rows"));
        let why = wide.reason.as_deref().unwrap();
        assert!(
            why.starts_with("parameter 3 (rows) is 32-bit in your kernel; the exercise passes a 64-bit integer"),
            "{why}"
        );
        let hostile = check(
            &CHAPTER,
            &COPY,
            &args("hostile.cu"),
            &format!("#include <cstdio>\n#include \"/etc/hostname\"\n{SOLUTION}"),
        );
        assert_eq!((hostile.outcome, hostile.exit_code), (CheckOutcome::Fail, 1));
        let why = hostile.reason.as_deref().unwrap();
        assert!(why.starts_with("refused before compiling: line 2: `#include \"/etc/hostname\"`"), "{why}");
        assert!(hostile.compile_log.is_none() && hostile.compiler.is_none(), "the compiler never saw it: {hostile:?}");
        assert!(render(&hostile).contains("a submission may include only <algorithm>"));
        let usual = check(
            &CHAPTER,
            &COPY,
            &args("usual.cu"),
            &format!("#include <cuda_runtime.h>\n#include <cstdio>\n{SOLUTION}"),
        );
        assert_eq!(usual.exit_code, r.exit_code, "the usual first lines change nothing: {:?}", usual.reason);
        let private = CheckArgs { seed: Some(7), private: true, ..args("private.cu") };
        let quiet = check(&CHAPTER, &COPY, &private, SOLUTION);
        let compiler = quiet.compiler.as_deref().unwrap();
        assert!(
            compiler.starts_with("NVRTC 13.0 for ") && !compiler.contains('/'),
            "a private record names no folder: {compiler}"
        );
        let json: serde_json::Value = serde_json::from_str(&serde_json::to_string(&other).unwrap()).unwrap();
        assert_eq!((json["outcome"].as_str(), json["exit_code"].as_i64()), (Some("fail"), Some(1)));
    }
}
