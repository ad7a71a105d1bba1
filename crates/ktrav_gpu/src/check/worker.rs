//! Shapes in worker processes: the check (the supervisor) writes a job
//! file, starts its own binary again with the hidden subcommand
//! [`WORKER_COMMAND`], and watches it. The worker opens the GPU and takes
//! the job's tasks in turn (the shapes of one battery, or the timing run),
//! each with the kernel loaded afresh and buffers of its own, writes what
//! it found on each to a result file, and goes on only while nothing has
//! put its context in doubt (`goes_on_after`).
//!
//! Why a process and not a thread: a CUDA context belongs to a process,
//! and a kernel that faults leaves its context unusable, while one that
//! never finishes leaves it busy; nothing in that process can free or wait
//! for anything on the GPU again. Only ending the process frees the
//! context, so the watchdog lives in the supervisor, which kills a worker
//! that overruns and goes on with the next shape in a fresh one. Why not a
//! process per shape: starting a worker costs a context, a good part of a
//! second on a card that a class shares (run 17 of bench/NOTES.md), far
//! more than most shapes' kernels. The timing run, which needs every kernel
//! in one context and one run, is a single task.
//!
//! What the worker's kernel prints (`printf` lands on the worker's standard
//! output) is read by the supervisor as it comes, and capped
//! ([`ktrav::lab::Printed`]); the verdict itself travels in the result
//! file, where no kernel output can reach it.
//!
//! The watchdog times the kernel, not the process: the worker tells its
//! supervisor on standard error (where no kernel can print) when it enters
//! each [`Phase`], and each phase has a limit of its own. Only the kernel's
//! phase is held to the student's `--timeout`; a worker that overruns the
//! generous limits on starting (the context, loading, allocating) or on
//! reading back and judging was slowed by a busy machine, which is no
//! verdict on the kernel (`Overran::Machine`).
//!
//! The worker is started and watched by [`ktrav_proc::run`]: in a process
//! group of its own, killed with it when a limit passes or the check is
//! stopped, its output read to the end. A worker lives only as long as its
//! supervisor: it watches the lifeline on its standard input
//! ([`ktrav_proc::die_with_the_supervisor`]), which closes when the
//! supervisor ends or gives up on it, and exits then, whichever process
//! started it (compute-sanitizer starts it from a thread of its own).

use super::run::{run_case, Fit};
use super::timing::{time, SkippedWork};
use crate::runner::{self as gpu};
use ktrav::lab::{Case, Exercise, Printed, Timing, Verdict};
use ktrav::{Chapter, Shape};
use ktrav_proc::{ByLine, Ending, Heard, Lines, Notes, Stream};
use ktrav_term::cli::Exit;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The hidden subcommand a chapter binary runs a worker with.
pub const WORKER_COMMAND: &str = "check-worker";

/// Where a worker is in its job. The supervisor limits each phase apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Reading the job, opening the GPU, loading the kernel, allocating.
    Setup,
    /// Waiting for the device's timing lock (the timing run) or memory
    /// lock (a shape of [`super::lock::LARGE_BYTES`] or more).
    Queued,
    /// The kernel's launches, up to the wait after the last.
    Kernel,
    /// Reading the output back, judging it, writing the result.
    Verify,
}

impl Phase {
    const ALL: [Phase; 4] = [Phase::Setup, Phase::Queued, Phase::Kernel, Phase::Verify];

    fn word(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Queued => "queued",
            Phase::Kernel => "kernel",
            Phase::Verify => "verify",
        }
    }

    /// The phase a line of the worker's standard error announces, if any.
    fn announced(line: &str) -> Option<Phase> {
        let word = line.strip_prefix(PHASE_MARK)?.trim_end();
        Phase::ALL.into_iter().find(|p| p.word() == word)
    }
}

/// The start of a line that announces a phase. It begins with a control
/// character no message of the program's own starts with.
const PHASE_MARK: &str = "\u{1e}ktrav-check-phase ";

/// Set in a worker's environment by its supervisor: announce phases.
const PHASES_ENV: &str = "KTRAV_CHECK_PHASES";

/// Set by whoever runs a check to see where its workers' time goes: each
/// worker's phases and their durations, one line each on standard error.
pub const TRACE_ENV: &str = "KTRAV_CHECK_TRACE";

/// Tells the supervisor, if there is one, that the worker enters `phase`.
pub(crate) fn enter(phase: Phase) {
    if std::env::var_os(PHASES_ENV).is_some() {
        eprintln!("{PHASE_MARK}{}", phase.word());
    }
}

/// How long each phase of a worker may last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The kernel's phase: the student's `--timeout`, or what is left of
    /// the patience after a hang.
    pub kernel: Duration,
    /// Starting: a context, loading, allocating; generous, since a machine
    /// shared by a class can be slow at it.
    pub setup: Duration,
    /// Waiting for the device's timing or memory lock behind other checks.
    pub queued: Duration,
    /// Reading back and judging the output.
    pub verify: Duration,
}

/// The limit on starting a worker and on judging its output.
pub const MACHINE_LIMIT: Duration = Duration::from_secs(120);

/// The limit on waiting for another check's timing run on the same device.
pub const QUEUE_LIMIT: Duration = Duration::from_secs(900);

impl Limits {
    /// The kernel's phase held to `kernel`, the machine's to the usual limits.
    pub fn kernel(kernel: Duration) -> Limits {
        Limits { kernel, setup: MACHINE_LIMIT, queued: QUEUE_LIMIT, verify: MACHINE_LIMIT }
    }

    fn of(&self, phase: Phase) -> Duration {
        match phase {
            Phase::Setup => self.setup,
            Phase::Queued => self.queued,
            Phase::Kernel => self.kernel,
            Phase::Verify => self.verify,
        }
    }
}

/// Which limit a worker ran past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Overran {
    /// The kernel's own: it did not finish.
    Kernel,
    /// One of the machine's: the worker was too slow to start, to get the
    /// device, or to judge the output; a busy machine, not the kernel.
    Machine(Phase),
}

/// What one worker is to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Job {
    pub chapter: String,
    pub exercise: String,
    /// The file's name, as the compiler's messages name it.
    pub file: String,
    pub source: String,
    /// Run in order, each with the kernel loaded afresh and buffers of its
    /// own, until one leaves a verdict after which the context may not be
    /// trusted ([`goes_on_after`]).
    pub tasks: Vec<Task>,
    /// The worker's own watchdog, a backstop behind the supervisor's.
    pub timeout_s: u64,
    /// The folder the worker writes each task's [`Outcome`] to, as `N.json`.
    pub results: PathBuf,
    /// The line the worker prints on its standard output after each task,
    /// which splits the kernel's `printf` among the tasks. Random, so no
    /// kernel can print it.
    #[serde(default)]
    pub marker: String,
    /// The supervisor's machine code for the source, when it has some: a
    /// worker loads it instead of compiling the file again, so a battery
    /// pays for one compile, not one per shape.
    #[serde(default)]
    pub cubin: Option<Vec<u8>>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) enum Task {
    /// Run the kernel on one shape (gridDim.y capped where the case says)
    /// and judge it.
    Shape { rows: u64, cols: u64, grid_y_cap: Option<u32>, fit: Fit },
    /// Time the kernel, the chapter's and a copy on one shape.
    Timing { rows: u64, cols: u64 },
}

/// What a worker found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Outcome {
    Verdict(Verdict),
    Timing(Box<Timing>),
    /// The kernel left the output wrong on a run of the timing: it does its
    /// work only on some launches.
    SkippedWork(String),
    /// The worker could not do its job (no GPU, the kernel did not load).
    Failed(String),
}

/// How to start a worker: a program and the arguments before the job file.
#[derive(Clone, Debug)]
pub struct Launcher {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

static LAUNCHER: OnceLock<Launcher> = OnceLock::new();

/// Makes every later [`super::check`] of this process run each shape in a
/// worker started as `program args... JOB`. A program that calls this must
/// hand `args... JOB` to [`serve`]. Without it, checks run in this process.
pub fn isolate_with(program: PathBuf, args: &[&str]) {
    let _ = LAUNCHER.set(Launcher { program, args: args.iter().map(OsString::from).collect() });
}

/// This binary, started as `<self> check-worker JOB`: what a chapter binary
/// uses, through [`super::LabCommand`].
pub fn isolate_with_this_binary() {
    if let Ok(me) = std::env::current_exe() {
        isolate_with(me, &[WORKER_COMMAND]);
    }
}

pub(crate) fn launcher() -> Option<&'static Launcher> {
    LAUNCHER.get()
}

/// The worker's side: runs the job in `job_file` for one of `chapters`,
/// writes its outcomes and returns the process's exit code: 0, or 1 when
/// an outcome could not be written; a job it cannot read is bad input.
/// The GPU's context is released before it returns, unless the worker
/// stopped after a task that may have left the device unusable (a crash,
/// a refused launch, a write past the output): that context is left to the
/// end of the process, as a stuck one must be.
pub fn serve(chapters: &[&Chapter], job_file: &Path) -> Result<i32, Exit> {
    ktrav_proc::die_with_the_supervisor();
    let job: Job = std::fs::read(job_file)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
        .map_err(|e| Exit::Usage(format!("cannot read the check's job {}: {e}", job_file.display())))?;
    let write = |n: usize, outcome: &Outcome| {
        let text = serde_json::to_vec(outcome).expect("an outcome serialises");
        let file = job.results.join(format!("{n}.json"));
        std::fs::write(&file, text).map_err(|e| eprintln!("error: cannot write {}: {e}", file.display())).is_ok()
    };
    let (ch, ex, gpu) = match open(chapters, &job) {
        Ok(opened) => opened,
        Err(failed) => return Ok(if write(0, &failed) { 0 } else { 1 }),
    };
    for (n, task) in job.tasks.iter().enumerate() {
        if n > 0 {
            enter(Phase::Setup);
        }
        let outcome = work(ch, ex, &gpu, &job, *task);
        if !write(n, &outcome) {
            std::mem::forget(gpu);
            return Ok(1);
        }
        end_of_task(&job.marker);
        if !goes_on_after(&outcome) {
            std::mem::forget(gpu);
            return Ok(0);
        }
    }
    drop(gpu);
    Ok(0)
}

/// Whether a worker takes its next task after `outcome`: only after a
/// verdict that leaves nothing wrong with the context, a pass or values
/// wrong inside the output. A crash, a hang, a refused launch, a changed
/// input or a write past the output's ends (which may have reached memory
/// the driver keeps) ends it, and the next task starts in a fresh one.
pub(crate) fn goes_on_after(outcome: &Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Verdict(Verdict::Pass)
            | Outcome::Verdict(Verdict::Fail { out_of_bounds_before: 0, out_of_bounds_after: 0, .. })
    )
}

/// After a task: what the kernel printed is flushed (the driver writes it
/// through C's buffered stdout), then the marker follows it.
fn end_of_task(marker: &str) {
    use std::io::Write;
    // SAFETY: fflush(NULL) flushes every C output stream; it takes no
    // pointer of ours.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{marker}");
    let _ = out.flush();
}

/// The job's chapter, exercise and an open GPU, or why not.
fn open<'a>(chapters: &[&'a Chapter], job: &Job) -> Result<(&'a Chapter, &'a Exercise, gpu::Gpu), Outcome> {
    let Some(ch) = chapters.iter().copied().find(|c| c.id == job.chapter) else {
        return Err(Outcome::Failed(format!("this binary has no chapter {}", job.chapter)));
    };
    let Some(ex) = ch.exercises.iter().find(|e| e.id == job.exercise) else {
        return Err(Outcome::Failed(format!("{} has no exercise {}", ch.id, job.exercise)));
    };
    match gpu::open() {
        Ok(g) => Ok((ch, ex, g)),
        Err(why) => Err(Outcome::Failed(format!("no GPU ({why})"))),
    }
}

/// One task, with the kernel loaded for it alone: a module's globals start
/// afresh on every shape, as in a process of its own.
fn work(ch: &Chapter, ex: &Exercise, gpu: &gpu::Gpu, job: &Job, task: Task) -> Outcome {
    let loaded = match &job.cubin {
        Some(cubin) => super::load_machine_code(gpu, ex, cubin),
        None => super::compile_and_load(gpu, ex, &job.source, &job.file),
    };
    let f = match loaded {
        Ok(f) => f,
        Err(why) => return Outcome::Failed(why.to_string()),
    };
    let timeout = Duration::from_secs(job.timeout_s);
    match task {
        Task::Shape { rows, cols, grid_y_cap, fit } => {
            let case = shape_case(rows, cols, grid_y_cap);
            // A shape that needs much of the card's memory waits for the
            // other checks' such shapes to end, so none is starved of it.
            let _turn = if ktrav::lab::device_bytes(ex, case.shape) >= super::lock::LARGE_BYTES {
                enter(Phase::Queued);
                let held = gpu.pci_address().and_then(|pci| super::lock::acquire(&pci, super::lock::Lock::Memory));
                match held {
                    Ok(h) => {
                        enter(Phase::Setup);
                        Some(h)
                    }
                    Err(e) => return Outcome::Failed(format!("{e:#}")),
                }
            } else {
                None
            };
            Outcome::Verdict(run_case(gpu, &f, ex, &case, timeout, fit))
        }
        Task::Timing { rows, cols } => {
            // One timing at a time on a card: wait for the others' to end.
            enter(Phase::Queued);
            let pci = match gpu.pci_address() {
                Ok(p) => p,
                Err(e) => return Outcome::Failed(format!("{e:#}")),
            };
            let _held = match super::lock::acquire(&pci, super::lock::Lock::Timing) {
                Ok(h) => h,
                Err(e) => return Outcome::Failed(format!("{e:#}")),
            };
            enter(Phase::Setup);
            let theirs = gpu.function(ch.id, ex.kernel).ok();
            let before = super::neighbours::processes_on(&pci);
            let timed = time(gpu, &f, theirs.as_ref(), ex, Shape::new(rows, cols), timeout);
            let after = super::neighbours::processes_on(&pci);
            match timed {
                Ok(mut t) => {
                    // The worker, and the check that started it, which holds a context.
                    if let Some(shared) = super::neighbours::note(before, after, 2) {
                        t.note = Some(match t.note.take() {
                            Some(n) => format!("{n}; {shared}"),
                            None => shared,
                        });
                    }
                    Outcome::Timing(Box::new(t))
                }
                Err(e) => match e.downcast_ref::<SkippedWork>() {
                    Some(skipped) => Outcome::SkippedWork(skipped.to_string()),
                    None => Outcome::Failed(format!("{e:#}")),
                },
            }
        }
    }
}

/// What the supervisor saw of one worker.
pub(crate) struct Ran {
    /// What the worker wrote, if it got that far.
    pub outcome: Option<Outcome>,
    /// Its standard output that was not the sanitizer's: the kernel's `printf`.
    pub printed: Printed,
    /// compute-sanitizer's lines (those starting `=========`), when it ran under one.
    pub sanitizer: Vec<String>,
    /// How it ended: `exit code 0`, `killed by signal 11`.
    pub status: String,
    /// The last line of its standard error.
    pub stderr_last: Option<String>,
    /// The limit it ran past, if the watchdog killed it.
    pub overran: Option<Overran>,
    /// The last phase it announced.
    pub reached: Phase,
}

/// Sanitizer lines kept per run.
const SANITIZER_LINES: usize = 200;

/// `text` without control characters and the replacement character that
/// bytes which were not UTF-8 became: what is quoted from a tool's output
/// must not carry NUL bytes into a terminal or a JSON record.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control() && *c != char::REPLACEMENT_CHARACTER).collect()
}

static JOBS: AtomicUsize = AtomicUsize::new(0);

/// The worker's standard output: compute-sanitizer's lines apart, the rest
/// the kernel's `printf`, split among the tasks by the job's marker.
struct Printout {
    printed: Vec<Printed>,
    at: usize,
    marker: String,
    sanitizer: Vec<String>,
}

impl Lines<Phase> for Printout {
    type Kept = (Vec<Printed>, Vec<String>);

    fn line(&mut self, text: &str, _: &Notes<Phase>) {
        if text == self.marker {
            self.at = (self.at + 1).min(self.printed.len() - 1);
        } else if text.starts_with("=========") {
            // The first lines (the findings worth quoting) and, past the
            // cap, the summary lines the verdict is read from.
            if self.sanitizer.len() < SANITIZER_LINES || text.contains("SUMMARY:") {
                self.sanitizer.push(printable(text));
            }
        } else {
            self.printed[self.at].push(text);
        }
    }

    fn kept(self) -> (Vec<Printed>, Vec<String>) {
        (self.printed, self.sanitizer)
    }
}

/// The worker's standard error: the phases it announces, told to the
/// watchdog, and the last line that was not one.
struct Announcements {
    last: Option<String>,
}

impl Lines<Phase> for Announcements {
    type Kept = Option<String>;

    fn line(&mut self, text: &str, notes: &Notes<Phase>) {
        match Phase::announced(text) {
            Some(phase) => notes.send(phase),
            None if !text.trim().is_empty() => self.last = Some(printable(text).chars().take(2000).collect()),
            None => {}
        }
    }

    fn kept(self) -> Option<String> {
        self.last
    }
}

/// Starts a worker for `job` (under `wrapper`, a program and its arguments
/// such as compute-sanitizer's, when given), reads its output as it comes,
/// holds each of its phases to `limits`, kills it when one overruns, and
/// reports what it saw.
pub(crate) fn supervise(
    launcher: &Launcher,
    job: Job,
    label: &str,
    wrapper: Option<(&Path, &[String])>,
    limits: Limits,
) -> Ran {
    let (outcomes, printed, mut ran) = watch(launcher, job, &[label.to_string()], wrapper, limits);
    ran.outcome = outcomes.into_iter().next();
    ran.printed = printed.into_iter().next().unwrap_or_else(|| Printed::new(label));
    ran
}

/// What the supervisor saw of a worker given several tasks.
pub(crate) struct Batch {
    /// The tasks it finished, in order, each with what the kernel printed.
    pub done: Vec<(Outcome, Printed)>,
    /// How the worker ended, when it stopped before its tasks did for any
    /// reason but a verdict that ends a worker ([`goes_on_after`]): the
    /// task it was on is the one after `done`, and `printed` is that task's.
    pub stopped: Option<Ran>,
}

/// [`supervise`] for a job of several tasks, `labels` naming them. Each
/// task's phases are held to `limits`.
pub(crate) fn supervise_batch(launcher: &Launcher, job: Job, labels: &[String], limits: Limits) -> Batch {
    let (outcomes, mut printed, mut ran) = watch(launcher, job, labels, None, limits);
    let finished = outcomes.len();
    let by_design = outcomes.last().is_some_and(|o| !goes_on_after(o));
    let on = printed.split_off(finished.min(printed.len()));
    let stopped = (finished < labels.len() && !by_design).then(|| {
        ran.printed = on.into_iter().next().unwrap_or_else(|| Printed::new(&labels[finished]));
        ran
    });
    Batch { done: outcomes.into_iter().zip(printed).collect(), stopped }
}

/// Starts the worker for `job`, watches it to its end and reads what it
/// wrote: the outcomes of the tasks it finished, in order, what the kernel
/// printed on each task (one per label), and how it ended.
fn watch(
    launcher: &Launcher,
    mut job: Job,
    labels: &[String],
    wrapper: Option<(&Path, &[String])>,
    limits: Limits,
) -> (Vec<Outcome>, Vec<Printed>, Ran) {
    // A folder per job: supervisors on several threads never share one.
    let n = JOBS.fetch_add(1, Ordering::SeqCst);
    let folder = std::env::temp_dir().join(format!("ktrav-check-{}-{n}", std::process::id()));
    let job_file = folder.join("job.json");
    job.results = folder.join("results");
    job.marker = marker();
    let written = std::fs::create_dir_all(&job.results)
        .and_then(|()| std::fs::write(&job_file, serde_json::to_vec(&job).expect("a job serialises")));
    let label = labels.first().map_or("", String::as_str);
    let mut ran = Ran {
        outcome: None,
        printed: Printed::new(label),
        sanitizer: Vec::new(),
        status: String::new(),
        stderr_last: None,
        overran: None,
        reached: Phase::Setup,
    };
    if let Err(e) = written {
        ran.status = format!("not started: cannot write {} ({e})", job_file.display());
        let _ = std::fs::remove_dir_all(&folder);
        return (Vec::new(), Vec::new(), ran);
    }
    let mut cmd = match wrapper {
        Some((tool, args)) => {
            let mut c = Command::new(tool);
            c.args(args).arg(&launcher.program);
            c
        }
        None => Command::new(&launcher.program),
    };
    cmd.args(&launcher.args).arg(&job_file).env(PHASES_ENV, "1");
    let stdout = ByLine::new(Printout {
        printed: labels.iter().map(|l| Printed::new(l)).collect(),
        at: 0,
        marker: job.marker.clone(),
        sanitizer: Vec::new(),
    });
    let stderr = ByLine::new(Announcements { last: None });
    // Each phase the worker enters restarts the clock with that phase's
    // limit. Standard error closed: the worker is ending, and it gets the
    // machine's limit to do so, then is killed like one that overran.
    let reached = &mut ran.reached;
    let started = Instant::now();
    let mut marks = vec![(Phase::Setup, Duration::ZERO)];
    let finished = ktrav_proc::run(cmd, limits.of(Phase::Setup), stdout, stderr, |heard| match heard {
        Heard::Note(phase) => {
            *reached = phase;
            marks.push((phase, started.elapsed()));
            Some(limits.of(phase))
        }
        Heard::Closed(Stream::Stderr) => Some(limits.verify),
        Heard::Closed(Stream::Stdout) => None,
    });
    let mut printed = Vec::new();
    let mut outcomes = Vec::new();
    match finished {
        Ok(f) => {
            if f.ending == Ending::Deadline {
                ran.overran = Some(overran_in(ran.reached));
            }
            ran.status = describe(f.ending);
            (printed, ran.sanitizer) = f.stdout;
            ran.stderr_last = f.stderr;
            // In order, up to the first task with none.
            outcomes = (0..labels.len())
                .map_while(|n| {
                    let text = std::fs::read(job.results.join(format!("{n}.json"))).ok()?;
                    serde_json::from_slice::<Outcome>(&text).ok()
                })
                .collect();
        }
        Err(e) => ran.status = format!("not started: {e}"),
    }
    if std::env::var_os(TRACE_ENV).is_some() {
        eprintln!("{}", trace_line(label, labels.len(), &marks, started.elapsed(), &ran.status));
    }
    let _ = std::fs::remove_dir_all(&folder);
    (outcomes, printed, ran)
}

/// A line no kernel can print: random, from the standard library's
/// per-process random keys.
fn marker() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(JOBS.load(Ordering::SeqCst));
    format!("{PHASE_MARK}task done {:016x}", h.finish())
}

/// One worker's phases, each with the time spent in it (a phase entered
/// twice is counted twice), its whole life and how it ended.
fn trace_line(label: &str, tasks: usize, marks: &[(Phase, Duration)], total: Duration, status: &str) -> String {
    let mut parts = Vec::new();
    for (i, (phase, at)) in marks.iter().enumerate() {
        let until = marks.get(i + 1).map_or(total, |m| m.1);
        parts.push(format!("{} {:.3}", phase.word(), until.saturating_sub(*at).as_secs_f64()));
    }
    let more = if tasks > 1 { format!(" and {} more tasks", tasks - 1) } else { String::new() };
    format!("check trace: {label}{more}: {} s; total {:.3} s; {status}", parts.join(", "), total.as_secs_f64())
}

/// What overrunning the limit of `phase` says.
fn overran_in(phase: Phase) -> Overran {
    match phase {
        Phase::Kernel => Overran::Kernel,
        other => Overran::Machine(other),
    }
}

/// How a worker ended, as [`Ran::status`] says it. One the supervisor
/// stopped was killed with SIGKILL.
fn describe(ending: Ending) -> String {
    match ending {
        Ending::Exited(code) => format!("exit code {code}"),
        Ending::Signalled(sig) => format!("killed by signal {sig}"),
        Ending::Deadline | Ending::ParentStopped(_) => format!("killed by signal {}", libc::SIGKILL),
        Ending::Lost => "lost".into(),
    }
}

impl Ran {
    /// Whether the kernel ran past its limit.
    pub fn timed_out(&self) -> bool {
        self.overran == Some(Overran::Kernel)
    }

    /// Why the machine, not the kernel, stopped this run, if it did.
    pub fn machine_too_busy(&self) -> Option<String> {
        match self.overran {
            Some(Overran::Machine(phase)) => Some(format!(
                "the machine was too busy to {} within {} s",
                match phase {
                    Phase::Setup => "start the check's process",
                    Phase::Queued => "give the check its turn on the device",
                    Phase::Kernel | Phase::Verify => "read back and judge the output",
                },
                match phase {
                    Phase::Queued => QUEUE_LIMIT.as_secs(),
                    _ => MACHINE_LIMIT.as_secs(),
                }
            )),
            _ => None,
        }
    }

    /// The shape's verdict from what the worker did. A run the machine
    /// stopped has none: ask [`Ran::machine_too_busy`] first.
    pub fn verdict(&self, timeout: Duration) -> Verdict {
        if self.timed_out() {
            return Verdict::DidNotFinish { seconds: timeout.as_secs() };
        }
        match &self.outcome {
            Some(outcome) => verdict_of(outcome.clone()),
            None => Verdict::Crashed { error: self.ended_without_verdict() },
        }
    }

    /// `the process ... ended without a verdict (killed by signal 11): last stderr line`.
    pub fn ended_without_verdict(&self) -> String {
        let last = self.stderr_last.as_deref().map_or(String::new(), |l| format!(": {l}"));
        format!("the shape's process ended without a verdict ({}){last}", self.status)
    }
}

/// The verdict a shape's task came back with.
pub(crate) fn verdict_of(outcome: Outcome) -> Verdict {
    match outcome {
        Outcome::Verdict(v) => v,
        Outcome::Failed(why) => Verdict::Crashed { error: format!("the shape's process could not run it: {why}") },
        Outcome::Timing(_) | Outcome::SkippedWork(_) => {
            Verdict::Crashed { error: "the shape's process answered with a timing".into() }
        }
    }
}

/// The file a check judges, as its workers are handed it.
#[derive(Clone, Copy)]
pub(crate) struct Submitted<'a> {
    pub chapter: &'a Chapter,
    pub ex: &'a Exercise,
    /// The file's name.
    pub name: &'a str,
    pub source: &'a str,
    /// The machine code the supervisor compiled, when it did; without it a
    /// worker compiles the source itself.
    pub cubin: Option<&'a [u8]>,
}

/// A job of one task on `file`.
pub(crate) fn job(file: &Submitted, task: Task, timeout: Duration) -> Job {
    job_of(file, vec![task], timeout)
}

/// A job for `tasks`, in order, on `file`.
pub(crate) fn job_of(file: &Submitted, tasks: Vec<Task>, timeout: Duration) -> Job {
    Job {
        chapter: file.chapter.id.to_string(),
        exercise: file.ex.id.to_string(),
        file: file.name.to_string(),
        source: file.source.to_string(),
        tasks,
        // The supervisor's watchdog acts first; this one only stops a
        // worker whose supervisor is gone.
        timeout_s: timeout.as_secs() * 2 + 10,
        results: PathBuf::new(),
        marker: String::new(),
        cubin: file.cubin.map(<[u8]>::to_vec),
    }
}

/// The case a shape task runs: its shape, with the gridDim.y cap the
/// supervisor's battery gave it (a hidden case's loop over rows of blocks).
fn shape_case(rows: u64, cols: u64, grid_y_cap: Option<u32>) -> Case {
    Case { grid_y_cap, ..Case::public(String::new(), Shape::new(rows, cols)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_shape_task_keeps_its_grid_cap() {
        assert_eq!(shape_case(5, 7, Some(3)).grid_y_cap, Some(3));
        assert_eq!(shape_case(5, 7, None).grid_y_cap, None);
        assert_eq!(shape_case(5, 7, Some(3)).shape, Shape::new(5, 7));
    }

    /// A worker is any program: here a shell that prints a line per
    /// "thread", one that never ends, and one that dies by a signal.
    #[test]
    fn the_supervisor_caps_output_kills_overruns_and_names_a_signal() {
        let thirty = Limits::kernel(Duration::from_secs(30));
        let chatty = sh(
            "i=0; while [ $i -lt 500 ]; do echo thread $i; i=$((i+1)); done; echo '========= ERROR SUMMARY: 0 errors'",
        );
        let ran = supervise(&chatty, job(), "1x1", None, thirty);
        assert_eq!((ran.printed.lines(), ran.printed.first[0].as_str()), (500, "thread 0"));
        assert_eq!(ran.sanitizer, vec!["========= ERROR SUMMARY: 0 errors".to_string()]);
        assert!(!ran.timed_out() && ran.status == "exit code 0" && ran.outcome.is_none());
        // A tool that reports more than the cap still gives its summary, and
        // bytes that are not text (a NUL, invalid UTF-8) are left out.
        let flood = sh("printf '========= at k\\000\\377x+0x10\\n'; i=0; while [ $i -lt 300 ]; do echo '========= Invalid __global__ write'; i=$((i+1)); done; echo '========= ERROR SUMMARY: 301 errors'");
        let ran = supervise(&flood, job(), "1x1", None, thirty);
        assert_eq!(ran.sanitizer.len(), SANITIZER_LINES + 1);
        assert_eq!(ran.sanitizer[0], "========= at kx+0x10");
        assert_eq!(ran.sanitizer.last().map(String::as_str), Some("========= ERROR SUMMARY: 301 errors"));
        assert!(ran.verdict(Duration::from_secs(30)).kinds() == vec![ktrav::lab::FailureKind::Crashed]);
        let killed = supervise(&sh("echo oops >&2; kill -SEGV $$"), job(), "1x1", None, thirty);
        assert_eq!(
            killed.ended_without_verdict(),
            "the shape's process ended without a verdict (killed by signal 11): oops"
        );
        // A worker that writes its result is believed, whatever it printed.
        let honest = sh(&format!("{RESULTS}; echo '{PASS}' > \"$r/0.json\""));
        let ok = supervise(&honest, job(), "1x1", None, thirty);
        assert_eq!(ok.verdict(Duration::from_secs(30)), Verdict::Pass, "{}", ok.status);
    }

    /// The watchdog holds the kernel's phase to the kernel's limit and the
    /// rest to the machine's: a slow start is no hang, a hang is no busy
    /// machine.
    #[test]
    fn the_watchdog_times_the_kernel_not_the_process() {
        let limits = |kernel_ms, machine_ms| Limits {
            kernel: Duration::from_millis(kernel_ms),
            setup: Duration::from_millis(machine_ms),
            queued: Duration::from_millis(machine_ms),
            verify: Duration::from_millis(machine_ms),
        };
        let kernel = "printf '\\036ktrav-check-phase kernel\\n' >&2";
        let verify = "printf '\\036ktrav-check-phase verify\\n' >&2";
        // Starting takes longer than the kernel may run; the kernel does not.
        let slow_start = supervise(
            &sh(&format!("sleep 0.6; {kernel}; sleep 0.05; {verify}")),
            job(),
            "1x1",
            None,
            limits(300, 10_000),
        );
        assert_eq!((slow_start.overran, slow_start.reached), (None, Phase::Verify), "{}", slow_start.status);
        assert!(!slow_start.timed_out() && slow_start.machine_too_busy().is_none());
        // A kernel that never ends is the kernel's overrun, killed on time.
        let started = Instant::now();
        let hung = supervise(&sh(&format!("{kernel}; exec sleep 30")), job(), "1x1", None, limits(300, 10_000));
        assert!(hung.timed_out() && hung.machine_too_busy().is_none() && started.elapsed() < Duration::from_secs(5));
        assert_eq!(hung.verdict(Duration::from_secs(7)), Verdict::DidNotFinish { seconds: 7 });
        // A worker that never gets as far as its launches: the machine's.
        let stuck = supervise(&sh("exec sleep 30"), job(), "1x1", None, limits(10_000, 300));
        assert_eq!(stuck.overran, Some(Overran::Machine(Phase::Setup)));
        assert!(
            !stuck.timed_out() && stuck.machine_too_busy().unwrap().starts_with("the machine was too busy to start")
        );
        // Nor to the end of its judging.
        let slow_judge =
            supervise(&sh(&format!("{kernel}; {verify}; exec sleep 30")), job(), "1x1", None, limits(10_000, 300));
        assert_eq!(slow_judge.overran, Some(Overran::Machine(Phase::Verify)));
        // A line that only looks like a phase is a line.
        assert_eq!(Phase::announced("\u{1e}ktrav-check-phase kernel"), Some(Phase::Kernel));
        assert_eq!(Phase::announced("ktrav-check-phase kernel"), None);
        assert_eq!(Phase::announced("\u{1e}ktrav-check-phase nap"), None);
    }

    /// A worker whose standard error closes but which lingers is killed
    /// after the machine's limit, and one that exits is not waited on.
    #[test]
    fn a_worker_that_closes_its_output_but_lingers_is_ended() {
        let limits = Limits {
            kernel: Duration::from_secs(10),
            setup: Duration::from_millis(400),
            queued: Duration::from_secs(10),
            verify: Duration::from_millis(400),
        };
        let started = Instant::now();
        let lingering = supervise(&sh("exec 2>&- 1>&-; sleep 30"), job(), "1x1", None, limits);
        assert!(lingering.overran.is_some() && started.elapsed() < Duration::from_secs(5), "{:?}", lingering.overran);
        // In the kernel's phase too: once standard error closes, the
        // machine's limit holds, not the kernel's.
        let started = Instant::now();
        let in_kernel = supervise(
            &sh("printf '\\036ktrav-check-phase kernel\\n' >&2; exec 2>&- 1>&-; sleep 30"),
            job(),
            "1x1",
            None,
            limits,
        );
        assert_eq!((in_kernel.overran, in_kernel.reached), (Some(Overran::Kernel), Phase::Kernel));
        assert!(started.elapsed() < limits.kernel, "{:?}", started.elapsed());
        // A process the worker left behind, holding its standard output,
        // delays the report by a bounded grace, not until it ends.
        let started = Instant::now();
        let left = supervise(&sh("echo before; sleep 30 2>/dev/null </dev/null & exit 0"), job(), "1x1", None, limits);
        assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
        assert_eq!(left.status, "exit code 0");
    }

    /// A shell worker's lines that set `$r` to the job's results folder and
    /// `$m` to its marker (without its first character, a control one).
    const RESULTS: &str = r#"r=$(sed -n 's/.*"results":"\([^"]*\)".*/\1/p' "$1"); m=$(sed -n 's/.*"marker":"\\u001e\([^"]*\)".*/\1/p' "$1")"#;
    const PASS: &str = r#"{"Verdict":{"verdict":"pass"}}"#;
    const CRASHED: &str = r#"{"Verdict":{"verdict":"crashed","error":"an illegal address"}}"#;

    /// A worker given several tasks: what it finished is read in order,
    /// the kernel's printing split by the marker; a kernel that hangs on a
    /// later task leaves that task to the caller, with the run that did not
    /// finish; a verdict that ends a worker leaves none.
    #[test]
    fn a_worker_takes_tasks_in_turn_until_one_stops_it() {
        let labels: Vec<String> = ["a", "b", "c"].iter().map(|l| l.to_string()).collect();
        let limits = Limits::kernel(Duration::from_millis(500));
        let kernel = "printf '\\036ktrav-check-phase kernel\\n' >&2";
        let setup = "printf '\\036ktrav-check-phase setup\\n' >&2";
        let done = |n: usize, outcome: &str| format!("echo '{outcome}' > \"$r/{n}.json\"; printf '\\036%s\\n' \"$m\"");
        let hangs = sh(&format!(
            "{RESULTS}; echo on a; {}; {setup}; echo on b; echo more on b; {}; {setup}; {kernel}; echo on c; exec sleep 30",
            done(0, PASS),
            done(1, PASS)
        ));
        let started = Instant::now();
        let batch = supervise_batch(&hangs, job(), &labels, limits);
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        let printed: Vec<_> = batch.done.iter().map(|(_, p)| (p.label.as_str(), p.first.clone())).collect();
        assert_eq!(printed, vec![("a", vec!["on a".to_string()]), ("b", vec!["on b".into(), "more on b".into()])]);
        assert!(batch.done.iter().all(|(o, _)| goes_on_after(o)));
        let stopped = batch.stopped.expect("the worker stopped on c");
        assert!(stopped.timed_out(), "{}", stopped.status);
        assert_eq!((stopped.printed.label.as_str(), stopped.printed.first.clone()), ("c", vec!["on c".to_string()]));
        // A crash's verdict ends the worker by design: nothing is left over.
        let crashes = sh(&format!("{RESULTS}; {}; {setup}; {}", done(0, PASS), done(1, CRASHED)));
        let batch = supervise_batch(&crashes, job(), &labels, limits);
        assert_eq!(batch.done.len(), 2);
        assert!(batch.stopped.is_none());
        assert!(!goes_on_after(&batch.done[1].0));
        // A worker that dies between tasks leaves the next one to the caller.
        let dies = sh(&format!("{RESULTS}; {}; kill -SEGV $$", done(0, PASS)));
        let batch = supervise_batch(&dies, job(), &labels, limits);
        assert_eq!(batch.done.len(), 1);
        let stopped = batch.stopped.expect("the worker died before b");
        assert!(!stopped.timed_out() && stopped.status == "killed by signal 11", "{}", stopped.status);
        // A line that only looks like the marker is the kernel's.
        let forged = sh(&format!("{RESULTS}; printf '\\036ktrav-check-phase task done 0\\n'; {}", done(0, PASS)));
        let batch = supervise_batch(&forged, job(), &labels, limits);
        assert_eq!(batch.done[0].1.first, vec!["\u{1e}ktrav-check-phase task done 0".to_string()]);
    }

    fn sh(script: &str) -> Launcher {
        Launcher { program: "/bin/sh".into(), args: vec!["-c".into(), script.into(), "sh".into()] }
    }

    fn job() -> Job {
        Job {
            chapter: "k0".into(),
            exercise: "e".into(),
            file: "f.cu".into(),
            source: String::new(),
            tasks: vec![Task::Shape { rows: 1, cols: 1, grid_y_cap: None, fit: Fit::Guarded }; 3],
            timeout_s: 1,
            results: PathBuf::new(),
            marker: String::new(),
            cubin: None,
        }
    }
}
