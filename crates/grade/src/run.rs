//! Checking submissions: each in a process of its own (the chapter's
//! `check`), under a wall-clock limit, with one worker per GPU.

use crate::plan::{Job, Options};
use crate::record;
use crate::store::{Ended, Stored};
use ktrav_proc::{Capped, Ending, Heard};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// Names a program to run instead of `<chapter>` for every check, with the
/// same arguments (the chapter is in `KTRAV_GRADE_CHAPTER`): a test's fake
/// checker, or a wrapper (a container, a module load).
pub const CHECKER_ENV: &str = "KTRAV_GRADE_CHECKER";

/// Where the chapter binaries are looked for, and what overrides them.
#[derive(Clone, Debug)]
pub struct Checker {
    /// The folder of the chapter binaries: the one this program runs from.
    pub dir: PathBuf,
    /// [`CHECKER_ENV`], when set.
    pub program: Option<PathBuf>,
}

impl Checker {
    /// The chapter binaries beside the running program, or [`CHECKER_ENV`].
    pub fn from_env() -> anyhow::Result<Self> {
        let exe = std::env::current_exe().map_err(|e| anyhow::anyhow!("cannot find this program's folder: {e}"))?;
        let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(Checker { dir, program: std::env::var_os(CHECKER_ENV).filter(|v| !v.is_empty()).map(PathBuf::from) })
    }

    /// The program that checks `chapter`'s exercises.
    pub fn program(&self, chapter: &str) -> PathBuf {
        self.program.clone().unwrap_or_else(|| self.dir.join(chapter))
    }

    /// The identity of the build that checks `chapter`: the program's
    /// size and the time it was last written, to the nanosecond, part of
    /// every result's key, so that results of an older build are not
    /// reused (a rebuild writes the file anew; reading a chapter binary
    /// of a hundred megabytes to hash it would cost seconds on every run).
    /// `Err` is one line.
    pub fn identity(&self, chapter: &str) -> anyhow::Result<String> {
        let p = self.program(chapter);
        let meta =
            std::fs::metadata(&p).map_err(|e| anyhow::anyhow!("cannot read the checker {}: {e}", p.display()))?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .ok_or_else(|| anyhow::anyhow!("the checker {} has no time of last change", p.display()))?;
        Ok(format!("{} bytes, written at {}.{:09}", meta.len(), modified.as_secs(), modified.subsec_nanos()))
    }

    /// Every chapter's [`Self::identity`].
    pub fn identities(&self, chapters: &[&str]) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
        chapters.iter().map(|c| Ok((c.to_string(), self.identity(c)?))).collect()
    }

    /// Says in one line which needed checker is missing, before any work.
    pub fn ensure(&self, chapters: &[&str]) -> anyhow::Result<()> {
        for chapter in chapters {
            let p = self.program(chapter);
            if !p.is_file() {
                return Err(anyhow::Error::msg(match &self.program {
                    Some(_) => format!("{CHECKER_ENV} names {}, which is not a file", p.display()),
                    None => format!(
                        "no checker {} beside this program (build it: cargo build --release -p {chapter})",
                        p.display()
                    ),
                }));
            }
        }
        Ok(())
    }
}

/// The command that checks one submission:
/// `<chapter> check FILE --json --exercise ID [--seed-file SEED --private] [--large]`,
/// its device set in `CUDA_VISIBLE_DEVICES` when it has one. With a seed
/// the check reads it from `seed_file` (mode 600), so the seed is on no
/// command line, and reports every hidden shape as pass or fail only.
/// `KTRAV_LAB_SEED` is removed from the check's environment: only the
/// plan says which battery is graded. Every check is made through this
/// one function.
pub fn checker_command(
    checker: &Checker,
    job: &Job,
    options: &Options,
    seed_file: &Path,
    device: Option<&str>,
) -> Command {
    let mut cmd = Command::new(checker.program(&job.exercise.chapter));
    cmd.arg("check").arg(&job.file).arg("--json").arg("--exercise").arg(&job.exercise.id);
    if options.seed.is_some() {
        cmd.arg("--seed-file").arg(seed_file).arg("--private");
    }
    if options.large {
        cmd.arg("--large");
    }
    cmd.env_remove(ktrav::lab::SEED_ENV);
    cmd.env("KTRAV_GRADE_CHAPTER", &job.exercise.chapter);
    if let Some(d) = device {
        cmd.env("CUDA_VISIBLE_DEVICES", d);
    }
    cmd
}

/// The most of a checker's standard output kept (a record is far smaller;
/// anything past this is read and dropped).
const STDOUT_CAP: usize = 16 << 20;
/// The most of a checker's standard error read into memory (the rest is
/// read and dropped), of which the stored result keeps the tail.
const STDERR_CAP: usize = 1 << 20;
/// The tail of standard error kept in a stored result.
const STDERR_TAIL: usize = 4 << 10;

/// On SIGINT, SIGTERM or SIGHUP (Ctrl-C, `scancel`, a Slurm time limit),
/// kills every running check's process group, then exits with 128 + the
/// signal: each check runs in a group of its own, so that a timed-out
/// check's children can be killed with it, and so no longer hears the
/// terminal's Ctrl-C itself.
pub fn stop_children_on_signal() {
    ktrav_proc::stop_children_on_signal(stopped);
}

fn stopped(sig: i32) -> ! {
    eprintln!("\nstopped: the results stored so far are kept; run the same command again to resume");
    std::process::exit(128 + sig)
}

fn tail(text: &str, at_most: usize) -> String {
    if text.len() <= at_most {
        return text.to_string();
    }
    let mut start = text.len() - at_most;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
}

/// The name of a signal, for a verdict's detail.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        _ => return format!("signal {sig}"),
    };
    format!("signal {sig} ({name})")
}

/// How one check ended: a result to store, or stopped from outside.
pub enum Checked {
    Done(Stored),
    /// The checker died of SIGTERM, SIGINT or SIGHUP, none of which the
    /// grader sends (it kills with SIGKILL), or the grader itself was
    /// stopped: `scancel`, a Slurm time limit or a shutdown, not anything
    /// the submission did. It is no result: nothing is stored, and the
    /// check stays to do (Slurm's own account of the task says why).
    Stopped {
        key: String,
        why: String,
    },
}

/// Checks one submission in a child process, supervised by
/// [`ktrav_proc::run`], and says how it ended. The child is killed with its
/// whole process group past `options.timeout`.
pub fn check_one(
    checker: &Checker,
    job: &Job,
    options: &Options,
    seed_file: &Path,
    device: Option<&str>,
    shown_device: &str,
) -> Checked {
    let mut stored = Stored {
        key: job.key.clone(),
        submission: job.submission.clone(),
        exercise: job.exercise.to_string(),
        ended: Ended::NotRun,
        detail: None,
        exit_code: None,
        signal: None,
        device: shown_device.to_string(),
        seconds: 0.0,
        record: None,
        stderr: String::new(),
    };
    let cmd = checker_command(checker, job, options, seed_file, device);
    let limit = Duration::from_secs(options.timeout);
    let finished = match ktrav_proc::run(cmd, limit, Capped::new(STDOUT_CAP), Capped::new(STDERR_CAP), |_: Heard<()>| {
        None
    }) {
        Ok(f) => f,
        Err(e) => {
            stored.detail = Some(format!("could not start {}: {e}", checker.program(&job.exercise.chapter).display()));
            return Checked::Done(stored);
        }
    };
    stored.seconds = (finished.elapsed.as_secs_f64() * 10.0).round() / 10.0;
    let out = String::from_utf8_lossy(&finished.stdout).into_owned();
    let err = String::from_utf8_lossy(&finished.stderr).into_owned();
    stored.stderr = tail(&err, STDERR_TAIL);
    let (code, signal) = match finished.ending {
        Ending::Exited(code) => (Some(code), None),
        Ending::Signalled(sig @ (libc::SIGTERM | libc::SIGINT | libc::SIGHUP)) => {
            return Checked::Stopped { key: stored.key, why: format!("the checker got {}", signal_name(sig)) };
        }
        Ending::Signalled(sig) => (None, Some(sig)),
        Ending::Lost => (None, None),
        Ending::Deadline => {
            stored.ended = Ended::TimedOut;
            stored.detail = Some(format!("stopped after {} s, the limit of one check (--timeout)", options.timeout));
            return Checked::Done(stored);
        }
        Ending::ParentStopped(sig) => {
            return Checked::Stopped {
                key: stored.key,
                why: format!("the grader was stopped by {}", signal_name(sig)),
            };
        }
    };
    stored.exit_code = code;
    stored.signal = signal;
    let first_err_line = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
    match (record::parse(&out), signal, code) {
        (Some((_, value)), None, _) => {
            stored.ended = Ended::Record;
            stored.record = Some(value);
        }
        (_, Some(sig), _) => {
            stored.ended = Ended::Crashed;
            stored.detail = Some(format!("the checker died of {}", signal_name(sig)));
        }
        (None, None, Some(2)) => {
            stored.ended = Ended::NotRun;
            stored.detail = Some(format!("the checker refused the check (exit code 2): {first_err_line}"));
        }
        (None, None, code) => {
            stored.ended = Ended::Crashed;
            let code = code.map_or("no exit code".to_string(), |c| format!("exit code {c}"));
            stored.detail = Some(format!("the checker printed no valid record ({code})"));
        }
    }
    Checked::Done(stored)
}

/// The GPUs to spread the checks over: `CUDA_VISIBLE_DEVICES` if it is
/// set (empty: none), else `nvidia-smi -L`'s list (a GPU's MIG instances in
/// its place where it has some), else the GPUs the driver lists under
/// `/proc/driver/nvidia/gpus`.
pub fn devices_from(visible: Option<&str>, smi: Option<&str>, proc_gpus: usize) -> Vec<String> {
    if let Some(v) = visible {
        return v.split(',').map(str::trim).filter(|d| !d.is_empty()).map(String::from).collect();
    }
    if let Some(text) = smi {
        let mut out: Vec<String> = Vec::new();
        let mut gpu: Option<(String, Vec<String>)> = None;
        let uuid = |l: &str| l.split("UUID: ").nth(1).map(|u| u.trim_end_matches(')').trim().to_string());
        for line in text.lines() {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix("GPU ") {
                if let Some((index, migs)) = gpu.take() {
                    if migs.is_empty() {
                        out.push(index)
                    } else {
                        out.extend(migs)
                    }
                }
                let index = rest.split(':').next().unwrap_or("").trim().to_string();
                gpu = Some((index, Vec::new()));
            } else if t.starts_with("MIG ") {
                if let (Some((_, migs)), Some(u)) = (gpu.as_mut(), uuid(t)) {
                    migs.push(u);
                }
            }
        }
        if let Some((index, migs)) = gpu.take() {
            if migs.is_empty() {
                out.push(index)
            } else {
                out.extend(migs)
            }
        }
        return out;
    }
    (0..proc_gpus).map(|i| i.to_string()).collect()
}

/// [`devices_from`] on this machine.
pub fn devices() -> Vec<String> {
    let visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    let smi = if visible.is_none() {
        Command::new("nvidia-smi")
            .arg("-L")
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    } else {
        None
    };
    let proc_gpus = std::fs::read_dir("/proc/driver/nvidia/gpus").map_or(0, |d| d.count());
    devices_from(visible.as_deref(), smi.as_deref(), proc_gpus)
}

/// `per_gpu` workers per device, each with its device; a single worker that
/// leaves `CUDA_VISIBLE_DEVICES` as it is when there is none (its checks
/// then say whether they found a GPU).
pub fn workers(devices: &[String], per_gpu: usize) -> Vec<Option<String>> {
    if devices.is_empty() {
        vec![None]
    } else {
        // Device by device in turn, so that N workers spread over the cards
        // before any card gets a second.
        (0..per_gpu.max(1)).flat_map(|_| devices.iter().cloned().map(Some)).collect()
    }
}

/// Runs `work(job, device)` for every job, one thread per worker, each
/// taking the next job when its last is done; `done(stored)` is called on
/// the calling thread as each finishes, in the order they finish.
pub fn pool<J: Send, R: Send>(
    jobs: Vec<J>,
    workers: &[Option<String>],
    work: impl Fn(&J, Option<&str>) -> R + Sync,
    mut done: impl FnMut(R),
) {
    let queue = Mutex::new(VecDeque::from(jobs));
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        for device in workers {
            let tx = tx.clone();
            let (queue, work) = (&queue, &work);
            s.spawn(move || loop {
                let Some(job) = queue.lock().expect("no worker panics holding the queue").pop_front() else { break };
                if tx.send(work(&job, device.as_deref())).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for r in rx {
            done(r);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Condvar};

    const SMI: &str = "GPU 0: NVIDIA H200 (UUID: GPU-aaaa)\nGPU 1: NVIDIA H200 (UUID: GPU-bbbb)\n  MIG 3g.71gb     Device  0: (UUID: MIG-1111)\n  MIG 3g.71gb     Device  1: (UUID: MIG-2222)\nGPU 2: NVIDIA H200 (UUID: GPU-cccc)\n";

    #[test]
    fn devices_come_from_the_environment_first() {
        assert_eq!(devices_from(Some("2,3"), Some(SMI), 8), ["2", "3"]);
        assert_eq!(devices_from(Some(" GPU-aaaa , MIG-1111"), None, 0), ["GPU-aaaa", "MIG-1111"]);
        assert!(devices_from(Some(""), Some(SMI), 8).is_empty(), "an empty CUDA_VISIBLE_DEVICES hides every GPU");
        assert_eq!(devices_from(None, Some(SMI), 0), ["0", "MIG-1111", "MIG-2222", "2"]);
        assert!(devices_from(None, Some(""), 3).is_empty(), "nvidia-smi's empty list is believed");
        assert_eq!(devices_from(None, None, 2), ["0", "1"]);
        assert!(devices_from(None, None, 0).is_empty());
    }

    #[test]
    fn one_worker_per_device_or_one_without() {
        assert_eq!(workers(&[], 3), [None]);
        let ws = workers(&devices_from(None, Some(SMI), 0), 1);
        assert_eq!(ws.len(), 4);
        assert_eq!(ws[1].as_deref(), Some("MIG-1111"));
    }

    /// Every job runs once, on one worker's device; no device ever runs two
    /// at a time; and the workers really run side by side: the first jobs
    /// wait until as many are running as there are workers.
    #[test]
    fn the_pool_keeps_every_device_busy_with_one_job_each() {
        let two = workers(&["0".into(), "1".into()], 2);
        assert_eq!(two, [Some("0".into()), Some("1".into()), Some("0".into()), Some("1".into())]);
        let ws = workers(&["0".into(), "1".into(), "MIG-x".into()], 1);
        // The devices running a job now, and whether all three ever were at once.
        type Running = Arc<(Mutex<(Vec<String>, bool)>, Condvar)>;
        let running: Running = Arc::default();
        let seen_together = Mutex::new(0usize);
        let mut finished = Vec::new();
        pool(
            (0..12).collect::<Vec<u32>>(),
            &ws,
            |job, device| {
                let device = device.expect("every worker has a device").to_string();
                let (lock, cv) = &*running;
                let mut now = lock.lock().unwrap();
                assert!(!now.0.contains(&device), "{device} was given two jobs at once");
                now.0.push(device.clone());
                now.1 |= now.0.len() == 3;
                cv.notify_all();
                if *job < 3 {
                    let (now2, timeout) = cv.wait_timeout_while(now, Duration::from_secs(10), |n| !n.1).unwrap();
                    assert!(!timeout.timed_out(), "the workers did not run side by side");
                    now = now2;
                    *seen_together.lock().unwrap() += 1;
                }
                now.0.retain(|d| d != &device);
                (*job, device)
            },
            |r| finished.push(r),
        );
        finished.sort();
        assert_eq!(finished.iter().map(|r| r.0).collect::<Vec<_>>(), (0..12).collect::<Vec<_>>());
        assert!(finished.iter().all(|(_, d)| ["0", "1", "MIG-x"].contains(&d.as_str())));
        assert_eq!(*seen_together.lock().unwrap(), 3);
    }

    #[test]
    fn the_command_is_the_chapters_check() {
        let checker = Checker { dir: "/opt/bin".into(), program: None };
        let job = Job {
            submission: "a".into(),
            file: "/room/a.cu".into(),
            exercise: crate::exercise::ExerciseRef::new("K.2", "k2_transpose", "transpose"),
            key: String::new(),
            expect: crate::plan::Expect::default(),
            normalized: String::new(),
            modified: None,
            extension: 0,
        };
        let options = Options::new(Some(7_777_777), true, 60);
        let cmd = checker_command(&checker, &job, &options, Path::new("/r/seed"), Some("1"));
        assert_eq!(cmd.get_program(), "/opt/bin/k2_transpose");
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(
            args,
            [
                "check",
                "/room/a.cu",
                "--json",
                "--exercise",
                "transpose",
                "--seed-file",
                "/r/seed",
                "--private",
                "--large"
            ]
        );
        assert!(!args.iter().any(|a| a.contains("7777777")), "the seed is on the command line");
        let envs: Vec<_> = cmd
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_string_lossy().into_owned())))
            .collect();
        assert!(envs.contains(&("CUDA_VISIBLE_DEVICES".into(), Some("1".into()))));
        assert!(envs.contains(&(ktrav::lab::SEED_ENV.into(), None)), "the seed variable is not removed: {envs:?}");
        let plain = checker_command(&checker, &job, &Options::new(None, false, 60), Path::new("/r/seed"), None);
        assert_eq!(plain.get_args().count(), 5);
        assert!(!plain.get_envs().any(|(k, _)| k == "CUDA_VISIBLE_DEVICES"));
        let fake = Checker { dir: "/opt/bin".into(), program: Some("/t/fake".into()) };
        assert_eq!(checker_command(&fake, &job, &options, Path::new("/r/seed"), None).get_program(), "/t/fake");
    }
}
