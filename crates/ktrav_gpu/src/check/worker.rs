//! Each shape in a process of its own: the check (the supervisor) writes a
//! job file, starts its own binary again with the hidden subcommand
//! [`WORKER_COMMAND`], and watches it. The worker opens the GPU, compiles
//! and loads the kernel, runs one shape (or the timing run), writes what it
//! found to a result file and exits.
//!
//! Why a process and not a thread: a CUDA context belongs to a process,
//! and a kernel that faults leaves its context unusable, while one that
//! never finishes leaves it busy; nothing in that process can free or wait
//! for anything on the GPU again. Only ending the process frees the
//! context, so the watchdog lives in the supervisor, which kills a worker
//! that overruns and goes on to the next shape in a fresh one. Starting a
//! worker costs a context and a compilation, so the timing run, which needs
//! every kernel in one context and one run, is a single worker.
//!
//! What the worker's kernel prints (`printf` lands on the worker's standard
//! output) is read by the supervisor as it comes, and capped
//! ([`ktrav::lab::Printed`]); the verdict itself travels in the result
//! file, where no kernel output can reach it.

use super::run::run_case;
use super::timing::time;
use crate::runner::{self as gpu};
use ktrav::lab::{Case, Exercise, Printed, Timing, Verdict};
use ktrav::{Chapter, Shape};
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The hidden subcommand a chapter binary runs a worker with.
pub const WORKER_COMMAND: &str = "check-worker";

/// What one worker is to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Job {
    pub chapter: String,
    pub exercise: String,
    /// The file's name, as the compiler's messages name it.
    pub file: String,
    pub source: String,
    pub task: Task,
    /// The worker's own watchdog, a backstop behind the supervisor's.
    pub timeout_s: u64,
    /// Where the worker writes its [`Outcome`].
    pub result: PathBuf,
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
    Shape { rows: u64, cols: u64, grid_y_cap: Option<u32> },
    /// Time the kernel, the chapter's and a copy on one shape.
    Timing { rows: u64, cols: u64 },
}

/// What a worker found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Outcome {
    Verdict(Verdict),
    Timing(Box<Timing>),
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
/// writes its outcome and exits 0 (or 2 when the job cannot be read).
pub fn serve(chapters: &[&Chapter], job_file: &Path) -> ! {
    // A worker must not outlive whoever started it: the check, or the
    // compute-sanitizer the check started it under, killed by a watchdog.
    // SAFETY: prctl(PR_SET_PDEATHSIG) only sets this process's own flag.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    let job: Job = match std::fs::read(job_file).map_err(|e| e.to_string()).and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string())) {
        Ok(j) => j,
        Err(e) => ktrav::cli::fail(&format!("cannot read the check's job {}: {e}", job_file.display())),
    };
    let outcome = work(chapters, &job);
    let text = serde_json::to_vec(&outcome).expect("an outcome serialises");
    if let Err(e) = std::fs::write(&job.result, text) {
        eprintln!("error: cannot write {}: {e}", job.result.display());
        std::process::exit(1);
    }
    std::process::exit(0)
}

fn work(chapters: &[&Chapter], job: &Job) -> Outcome {
    let Some(ch) = chapters.iter().find(|c| c.id == job.chapter) else {
        return Outcome::Failed(format!("this binary has no chapter {}", job.chapter));
    };
    let Some(ex) = ch.exercises.iter().find(|e| e.id == job.exercise) else {
        return Outcome::Failed(format!("{} has no exercise {}", ch.id, job.exercise));
    };
    let gpu = match gpu::open() {
        Ok(g) => g,
        Err(why) => return Outcome::Failed(format!("no GPU ({why})")),
    };
    let loaded = match &job.cubin {
        Some(cubin) => super::load_machine_code(&gpu, ex, cubin),
        None => super::compile_and_load(&gpu, ex, &job.source, &job.file),
    };
    let f = match loaded {
        Ok(f) => f,
        Err(why) => return Outcome::Failed(why),
    };
    let timeout = Duration::from_secs(job.timeout_s);
    match job.task {
        Task::Shape { rows, cols, grid_y_cap } => Outcome::Verdict(run_case(&gpu, &f, ex, &shape_case(rows, cols, grid_y_cap), timeout)),
        Task::Timing { rows, cols } => {
            let theirs = gpu.function(ch.id, ex.kernel).ok();
            match time(&gpu, &f, theirs.as_ref(), ex, Shape::new(rows, cols), timeout) {
                Ok(t) => Outcome::Timing(Box::new(t)),
                Err(e) => Outcome::Failed(format!("{e:#}")),
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
    /// Whether the watchdog killed it.
    pub timed_out: bool,
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

/// Starts a worker for `job` (under `wrapper`, a program and its arguments
/// such as compute-sanitizer's, when given), reads its output as it comes,
/// kills it after `timeout`, and reports what it saw.
pub(crate) fn supervise(launcher: &Launcher, mut job: Job, label: &str, wrapper: Option<(&Path, &[String])>, timeout: Duration) -> Ran {
    let folder = std::env::temp_dir().join(format!("ktrav-check-{}", std::process::id()));
    let n = JOBS.fetch_add(1, Ordering::SeqCst);
    let (job_file, result) = (folder.join(format!("{n}.job.json")), folder.join(format!("{n}.result.json")));
    job.result = result.clone();
    let written = std::fs::create_dir_all(&folder)
        .and_then(|()| std::fs::write(&job_file, serde_json::to_vec(&job).expect("a job serialises")));
    let mut ran = Ran {
        outcome: None,
        printed: Printed::new(label),
        sanitizer: Vec::new(),
        status: String::new(),
        stderr_last: None,
        timed_out: false,
    };
    if let Err(e) = written {
        ran.status = format!("not started: cannot write {} ({e})", job_file.display());
        return ran;
    }
    let mut cmd = match wrapper {
        Some((tool, args)) => {
            let mut c = Command::new(tool);
            c.args(args).arg(&launcher.program);
            c
        }
        None => Command::new(&launcher.program),
    };
    cmd.args(&launcher.args).arg(&job_file).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            ran.status = format!("not started: {e}");
            let _ = std::fs::remove_file(&job_file);
            return ran;
        }
    };
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let label = label.to_string();
    let reader = std::thread::spawn(move || {
        let mut printed = Printed::new(&label);
        let mut sanitizer = Vec::new();
        let mut input = BufReader::new(stdout);
        let mut line = Vec::new();
        while input.read_until(b'\n', &mut line).map(|n| n > 0).unwrap_or(false) {
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']);
            if text.starts_with("=========") {
                // The first lines (the findings worth quoting) and, past the
                // cap, the summary lines the verdict is read from.
                if sanitizer.len() < SANITIZER_LINES || text.contains("SUMMARY:") {
                    sanitizer.push(printable(text));
                }
            } else {
                printed.push(text);
            }
            line.clear();
        }
        (printed, sanitizer)
    });
    let errors = std::thread::spawn(move || {
        let mut tail = Vec::new();
        let mut buf = [0u8; 8192];
        let mut err = stderr;
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 16 << 10 {
                tail.drain(..tail.len() - (8 << 10));
            }
        }
        String::from_utf8_lossy(&tail).lines().rev().find(|l| !l.trim().is_empty()).map(str::to_string)
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < timeout => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                ran.timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Err(_) => break None,
        }
    };
    ran.status = status.map_or("lost".into(), describe_status);
    (ran.printed, ran.sanitizer) = reader.join().unwrap_or_default();
    ran.stderr_last = errors.join().unwrap_or_default();
    ran.outcome = std::fs::read(&result).ok().and_then(|b| serde_json::from_slice(&b).ok());
    let _ = std::fs::remove_file(&job_file);
    let _ = std::fs::remove_file(&result);
    let _ = std::fs::remove_dir(&folder);
    ran
}

fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "ended".into(),
    }
}

impl Ran {
    /// The shape's verdict from what the worker did.
    pub fn verdict(&self, timeout: Duration) -> Verdict {
        if self.timed_out {
            return Verdict::DidNotFinish { seconds: timeout.as_secs() };
        }
        match &self.outcome {
            Some(Outcome::Verdict(v)) => v.clone(),
            Some(Outcome::Failed(why)) => Verdict::Crashed { error: format!("the shape's process could not run it: {why}") },
            Some(Outcome::Timing(_)) => Verdict::Crashed { error: "the shape's process answered with a timing".into() },
            None => Verdict::Crashed { error: self.ended_without_verdict() },
        }
    }

    /// `the process ... ended without a verdict (killed by signal 11): last stderr line`.
    pub fn ended_without_verdict(&self) -> String {
        let last = self.stderr_last.as_deref().map_or(String::new(), |l| format!(": {l}"));
        format!("the shape's process ended without a verdict ({}){last}", self.status)
    }
}

/// A job for `task` on `ex` of `chapter`.
pub(crate) fn job(chapter: &Chapter, ex: &Exercise, file: &str, source: &str, cubin: Option<&[u8]>, task: Task, timeout: Duration) -> Job {
    Job {
        chapter: chapter.id.to_string(),
        exercise: ex.id.to_string(),
        file: file.to_string(),
        source: source.to_string(),
        task,
        // The supervisor's watchdog acts first; this one only stops a
        // worker whose supervisor is gone.
        timeout_s: timeout.as_secs() * 2 + 10,
        result: PathBuf::new(),
        cubin: cubin.map(<[u8]>::to_vec),
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
        let sh = |script: &str| Launcher { program: "/bin/sh".into(), args: vec!["-c".into(), script.into(), "sh".into()] };
        let job = || Job {
            chapter: "k0".into(),
            exercise: "e".into(),
            file: "f.cu".into(),
            source: String::new(),
            task: Task::Shape { rows: 1, cols: 1, grid_y_cap: None },
            timeout_s: 1,
            result: PathBuf::new(),
            cubin: None,
        };
        let chatty = sh("i=0; while [ $i -lt 500 ]; do echo thread $i; i=$((i+1)); done; echo '========= ERROR SUMMARY: 0 errors'");
        let ran = supervise(&chatty, job(), "1x1", None, Duration::from_secs(30));
        assert_eq!((ran.printed.lines(), ran.printed.first[0].as_str()), (500, "thread 0"));
        assert_eq!(ran.sanitizer, vec!["========= ERROR SUMMARY: 0 errors".to_string()]);
        assert!(!ran.timed_out && ran.status == "exit code 0" && ran.outcome.is_none());
        // A tool that reports more than the cap still gives its summary, and
        // bytes that are not text (a NUL, invalid UTF-8) are left out.
        let flood = sh("printf '========= at k\\000\\377x+0x10\\n'; i=0; while [ $i -lt 300 ]; do echo '========= Invalid __global__ write'; i=$((i+1)); done; echo '========= ERROR SUMMARY: 301 errors'");
        let ran = supervise(&flood, job(), "1x1", None, Duration::from_secs(30));
        assert_eq!(ran.sanitizer.len(), SANITIZER_LINES + 1);
        assert_eq!(ran.sanitizer[0], "========= at kx+0x10");
        assert_eq!(ran.sanitizer.last().map(String::as_str), Some("========= ERROR SUMMARY: 301 errors"));
        assert!(ran.verdict(Duration::from_secs(30)).kinds() == vec!["crashed"]);
        let started = Instant::now();
        let stuck = supervise(&sh("exec sleep 30"), job(), "1x1", None, Duration::from_millis(300));
        assert!(stuck.timed_out && started.elapsed() < Duration::from_secs(10));
        assert_eq!(stuck.verdict(Duration::from_secs(7)), Verdict::DidNotFinish { seconds: 7 });
        let killed = supervise(&sh("echo oops >&2; kill -SEGV $$"), job(), "1x1", None, Duration::from_secs(30));
        assert_eq!(killed.ended_without_verdict(), "the shape's process ended without a verdict (killed by signal 11): oops");
        // A worker that writes its result is believed, whatever it printed.
        let honest = sh("echo '{\"Verdict\":{\"verdict\":\"pass\"}}' > \"$(sed -n 's/.*\"result\":\"\\([^\"]*\\)\".*/\\1/p' \"$1\")\"");
        let ok = supervise(&honest, job(), "1x1", None, Duration::from_secs(30));
        assert_eq!(ok.verdict(Duration::from_secs(30)), Verdict::Pass, "{}", ok.status);
    }
}
