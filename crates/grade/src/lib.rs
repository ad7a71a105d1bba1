//! `appendix_k grade`: a whole room's submissions checked against the lab
//! exercises, each submission in a process of its own (the chapter binary's
//! `check --json`), one worker per GPU, or one Slurm array task per batch;
//! the results kept per content hash so that a stopped run resumes; and
//! from them a gradebook (`grades.csv`), Gradescope's and PrairieLearn's
//! `results.json` for every submission, and a summary page.
//!
//! * [`exercise`]: the exercises, as the caller's catalogue names them;
//! * [`plan`]: submissions, manifests, and the key each result is stored under;
//! * [`run`]: the checker's command, a check under a wall-clock limit, devices and workers;
//! * [`record`]: the checker's JSON record, as grading reads it;
//! * [`store`]: the results folder;
//! * [`gradebook`]: rows, `grades.csv`, Gradescope, PrairieLearn, the summary;
//! * [`slurm`]: array jobs, their scripts, and what the scheduler says of a task.
//!
//! Exit codes: 0 when every submission was checked (passing or failing), 3
//! when some could not be (no GPU, no checker, killed by the scheduler), 2
//! on bad input (one line, before any work), and with `--expect` 1 when a
//! verdict is not the one the manifest expects.

pub mod exercise;
pub mod gradebook;
pub mod plan;
pub mod record;
pub mod run;
pub mod slurm;
pub mod store;

use exercise::ExerciseRef;
use gradebook::{Outcome, Row};
use plan::{Options, Plan};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use store::Results;

/// Prints a line on stdout; a reader that has gone away (`grade ... | head`)
/// stops no grading.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

/// Where the results go when `--results` is not given.
pub const DEFAULT_RESULTS: &str = "grading";

/// The flags of `grade`.
#[derive(clap::Args, Clone, Debug)]
#[command(group(clap::ArgGroup::new("what").args(["exercise", "manifest"])))]
pub struct GradeArgs {
    /// The folder of submissions: every .cu file in it and below (with --exercise), or the folder a manifest's paths are under
    #[arg(required_unless_present_any = ["collect", "task"], conflicts_with_all = ["collect", "task"])]
    pub submissions: Option<PathBuf>,
    /// Grade every .cu file against this exercise, as CHAPTER:EXERCISE (K.2:transpose or k2_transpose:transpose)
    #[arg(long, value_name = "CHAPTER:EXERCISE")]
    pub exercise: Option<String>,
    /// A CSV file with the columns file,exercise[,expect,expect_large,expect_hidden,expect_hidden_large] naming each submission's exercise
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The results folder [default: ./grading]
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Passed to every check: the seed of the hidden battery
    #[arg(long, value_parser = seed)]
    pub seed: Option<u64>,
    /// Passed to every check: add the shapes past 2^31 elements
    #[arg(long)]
    pub large: bool,
    /// Seconds one submission's check may take before it is killed (verdict: timed out)
    #[arg(long, default_value_t = 600, value_parser = positive(7 * 24 * 3600))]
    pub timeout: u64,
    /// Check again the submissions whose stored result is "could not check"
    #[arg(long)]
    pub recheck: bool,
    /// Compare every verdict with the manifest's expect column; exit 1 if one differs
    #[arg(long)]
    pub expect: bool,
    /// Submit the checks as a Slurm array job instead of running them here
    #[arg(long)]
    pub slurm: bool,
    /// Slurm: the partition to submit to
    #[arg(long, requires = "slurm", value_name = "P")]
    pub partition: Option<String>,
    /// Slurm: the generic resources of each task, or "none" [default: gpu:1]
    #[arg(long, requires = "slurm", value_name = "SPEC")]
    pub gres: Option<String>,
    /// Slurm: how long each task may run, in sbatch's words (minutes, MIN:SEC, H:MIN:SEC, D-H:MIN) [default: minutes enough for its batch at --timeout, plus 2]
    #[arg(long, requires = "slurm", value_name = "TIME", value_parser = slurm_time)]
    pub time: Option<String>,
    /// Slurm: at most this many tasks at once (the array's %N)
    #[arg(long, requires = "slurm", value_name = "N", value_parser = positive(100_000))]
    pub max_parallel: Option<u64>,
    /// Slurm: submissions per array task [default: 1, more when there are over 1000]
    #[arg(long, requires = "slurm", value_name = "N", value_parser = positive(100_000))]
    pub batch: Option<u64>,
    /// Slurm: print the job scripts instead of writing and submitting them
    #[arg(long, requires = "slurm")]
    pub dry_run: bool,
    /// Write the gradebook and the results files of RESULTS_DIR from what is stored there (after a Slurm job)
    #[arg(long, value_name = "RESULTS_DIR", conflicts_with_all = ["exercise", "manifest", "results", "slurm", "seed", "large", "recheck"])]
    pub collect: Option<PathBuf>,
    /// Run array task N of a round (what the Slurm job script runs)
    #[arg(long, value_name = "N", requires_all = ["round", "results"], conflicts_with_all = ["exercise", "manifest", "slurm", "seed", "large", "recheck", "expect"])]
    pub task: Option<u64>,
    /// The round of --task
    #[arg(long, value_name = "R", requires = "task")]
    pub round: Option<u32>,
}

fn positive(max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |s: &str| match s.trim().parse::<u64>() {
        Ok(0) => Err("0 is not positive".into()),
        Ok(v) if v <= max => Ok(v),
        Ok(v) => Err(format!("{v} is larger than the limit of {max}")),
        Err(_) => Err(format!("'{s}' is not a positive whole number")),
    }
}

/// A time limit as sbatch takes one: `MIN`, `MIN:SEC`, `H:MIN:SEC`, `D-H`,
/// `D-H:MIN` or `D-H:MIN:SEC`, and not zero.
fn slurm_time(s: &str) -> Result<String, String> {
    let s = s.trim();
    let (days, rest) = match s.split_once('-') {
        Some((d, r)) => (Some(d), r),
        None => (None, s),
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let numbers = days.into_iter().chain(parts.iter().copied()).all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()));
    let shape = (1..=3).contains(&parts.len());
    if !numbers || !shape {
        return Err(format!("'{s}' is not a Slurm time (minutes, MIN:SEC, H:MIN:SEC or D-H:MIN)"));
    }
    if s.bytes().all(|b| !b.is_ascii_digit() || b == b'0') {
        return Err("a time limit of zero is none".into());
    }
    Ok(s.to_string())
}

fn seed(s: &str) -> Result<u64, String> {
    s.trim().parse().map_err(|_| format!("'{s}' is not a seed: use a whole number from 0 to {}", u64::MAX))
}

/// Why `grade` stopped early.
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// Bad input: exit code 2.
    BadInput(String),
    /// Nothing could be checked or submitted (no checker, no sbatch): exit code 3.
    CouldNot(String),
}

impl Failure {
    pub fn code(&self) -> i32 {
        match self {
            Failure::BadInput(_) => 2,
            Failure::CouldNot(_) => 3,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Failure::BadInput(m) | Failure::CouldNot(m) => m,
        }
    }
}

type Outcome2<T> = Result<T, Failure>;

fn bad<T>(m: impl Into<String>) -> Outcome2<T> {
    Err(Failure::BadInput(m.into()))
}

/// Runs `grade` with `catalogue` as the exercises there are, and returns
/// its exit code.
pub fn grade(args: &GradeArgs, catalogue: &[ExerciseRef]) -> Outcome2<i32> {
    if let Some(dir) = &args.collect {
        let results = Results::new(plan::absolute(dir).map_err(Failure::BadInput)?);
        let plan = results.read_plan().map_err(Failure::BadInput)?;
        return collect(&plan, &results, args.expect, true);
    }
    if let Some(task) = args.task {
        return run_task(args, task as usize);
    }
    let dir = args.submissions.as_deref().expect("clap requires it without --collect or --task");
    if !dir.is_dir() {
        return bad(format!("{} is not a folder of submissions", dir.display()));
    }
    if args.exercise.is_none() && args.manifest.is_none() {
        return bad("say what to grade against: --exercise CHAPTER:EXERCISE or --manifest FILE");
    }
    if args.expect && args.manifest.is_none() {
        return bad("--expect compares with a manifest's expect column: give --manifest FILE as well");
    }
    let results_dir = plan::absolute(args.results.as_deref().unwrap_or(Path::new(DEFAULT_RESULTS))).map_err(Failure::BadInput)?;
    if results_dir.exists() && !results_dir.is_dir() {
        return bad(format!("the results folder {} is a file", results_dir.display()));
    }
    let gres = match args.gres.as_deref() {
        Some("none") => None,
        Some(g) if g.trim().is_empty() || g.contains(char::is_whitespace) => {
            return bad(format!("'{g}' is not a --gres value (for example gpu:1, or none)"))
        }
        Some(g) => Some(g.to_string()),
        None => Some("gpu:1".to_string()),
    };
    let mut refused = Vec::new();
    let rows = match (&args.exercise, &args.manifest) {
        (Some(name), None) => {
            let exercise = exercise::find(catalogue, name).map_err(Failure::BadInput)?;
            let found = plan::discover(dir, Some(&results_dir)).map_err(Failure::BadInput)?;
            if found.files.is_empty() {
                return bad(format!("{} holds no .cu file to grade", dir.display()));
            }
            refused = found.refused;
            found.files.into_iter().map(|f| (f, exercise.clone(), plan::Expect::default())).collect()
        }
        (None, Some(manifest)) => plan::read_manifest(manifest, dir, catalogue).map_err(Failure::BadInput)?,
        _ => unreachable!("clap's group allows one of the two"),
    };
    let options = Options { seed: args.seed, large: args.large, timeout: args.timeout };
    let mut plan = plan::plan(dir, rows, options).map_err(Failure::BadInput)?;
    plan.refused = refused;
    let results = Results::new(results_dir);
    if args.slurm {
        let batch = args.batch.map(|b| b as usize);
        return submit(args, &plan, &results, gres, batch);
    }
    let checker = run::Checker::from_env().map_err(Failure::CouldNot)?;
    let mut chapters: Vec<&str> = plan.jobs.iter().map(|j| j.exercise.chapter.as_str()).collect();
    chapters.sort();
    chapters.dedup();
    checker.ensure(&chapters).map_err(Failure::CouldNot)?;
    results.write_plan(&plan).map_err(|e| Failure::CouldNot(format!("{e:#}")))?;
    let todo = to_check(&plan, &results, args.recheck);
    let devices = run::devices();
    check_locally(&plan, &results, &checker, todo, &devices, |d| d.unwrap_or("").to_string())?;
    collect(&plan, &results, args.expect, true)
}

/// The jobs to check: one per key that has no stored result (or, with
/// `recheck`, a stored "could not check"), in plan order.
fn to_check(plan: &Plan, results: &Results, recheck: bool) -> Vec<plan::Job> {
    let mut seen = std::collections::BTreeSet::new();
    plan.jobs
        .iter()
        .filter(|j| match results.stored(&j.key) {
            None => true,
            Some(s) => recheck && Row::of(j, Some(&s), None).outcome == Outcome::CouldNotCheck,
        })
        .filter(|j| seen.insert(j.key.clone()))
        .cloned()
        .collect()
}

/// Checks `todo`, one worker per device, storing each result as it comes,
/// with a progress bar on a terminal.
fn check_locally(
    plan: &Plan,
    results: &Results,
    checker: &run::Checker,
    todo: Vec<plan::Job>,
    devices: &[String],
    shown: impl Fn(Option<&str>) -> String + Sync,
) -> Outcome2<()> {
    let total = todo.len() as u64;
    let workers = run::workers(devices);
    let already = plan.jobs.len() - todo.len();
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("grading {pos}/{len} [{bar:30}] {elapsed} {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    if !bar.is_hidden() {
        let gpus = if devices.is_empty() { "no GPU found".to_string() } else { format!("{} GPU(s): {}", devices.len(), devices.join(", ")) };
        bar.println(format!("{total} to check ({already} already stored), {} worker(s), {gpus}", workers.len()));
        // The clock keeps moving while a long check runs.
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
    }
    run::stop_children_on_signal();
    let mut failure = None;
    run::pool(
        todo,
        &workers,
        |job, device| {
            bar.set_message(format!("{} ({})", job.submission, job.exercise));
            run::check_one(checker, job, &plan.options, device, &shown(device))
        },
        |stored| {
            if let Err(e) = results.store(&stored) {
                failure.get_or_insert(format!("{e:#}"));
            }
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    match failure {
        Some(f) => Err(Failure::CouldNot(f)),
        None => Ok(()),
    }
}

/// Writes the gradebook and every results file of `plan` from what is
/// stored (asking Slurm about the tasks that stored nothing), prints where
/// they are and what they say, and returns the exit code.
pub fn collect(plan: &Plan, results: &Results, expect: bool, print: bool) -> Outcome2<i32> {
    let missing: Vec<String> = plan.jobs.iter().filter(|j| results.stored(&j.key).is_none()).map(|j| j.key.clone()).collect();
    let tasks = if missing.is_empty() { BTreeMap::new() } else { slurm::states_of_missing(results, &missing) };
    let rows = gradebook::rows(plan, results, &tasks);
    gradebook::write_all(plan, results, &rows).map_err(|e| Failure::CouldNot(format!("{e:#}")))?;
    if !plan.refused.is_empty() {
        let summary = results.dir.join("summary.md");
        let text = std::fs::read_to_string(&summary).unwrap_or_default() + &refused_section(&plan.refused);
        store::write_atomic(&summary, &text).map_err(|e| Failure::CouldNot(format!("{e:#}")))?;
    }
    let counts: Vec<String> = Outcome::ALL
        .iter()
        .filter_map(|o| {
            let n = rows.iter().filter(|r| r.outcome == *o).count();
            (n > 0).then(|| format!("{n} {}", o.as_str()))
        })
        .collect();
    let unchecked = rows.iter().filter(|r| !r.outcome.checked()).count();
    if print {
        say!("{} submissions: {}", rows.len(), counts.join(", "));
        for r in &plan.refused {
            say!("refused: {}: {}", r.file, r.why);
        }
        say!("gradebook: {}", results.dir.join("grades.csv").display());
        say!("summary: {}", results.dir.join("summary.md").display());
        say!("Gradescope and PrairieLearn: {}/{{gradescope,prairielearn}}/SUBMISSION/results.json", results.dir.display());
    }
    if expect {
        let wrong = gradebook::unexpected(plan, &rows);
        let expected = plan.jobs.iter().filter(|j| j.expected(&plan.options).is_some()).count();
        for (row, e) in &wrong {
            say!("unexpected: {} {}: expected {e}, got {}{}", row.exercise, row.submission, row.verdict(), if row.note.is_empty() { String::new() } else { format!(" ({})", row.note) });
        }
        say!("{} of {expected} verdicts as the manifest expects", expected - wrong.len());
        if !wrong.is_empty() {
            return Ok(1);
        }
    }
    Ok(if unchecked > 0 { 3 } else { 0 })
}

/// The summary's list of the `.cu` entries refused, not graded.
fn refused_section(refused: &[plan::Refused]) -> String {
    let mut md = format!("\n## Refused, not graded\n\n{} entr{} named `.cu` not graded:\n\n", refused.len(), if refused.len() == 1 { "y" } else { "ies" });
    for r in refused {
        md.push_str(&format!("- `{}`: {}\n", r.file, r.why));
    }
    md
}

/// The node's name, for the device column of a Slurm task.
fn node_name() -> String {
    if let Ok(n) = std::env::var("SLURMD_NODENAME") {
        return n;
    }
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    if ok { String::from_utf8_lossy(&buf[..end]).into_owned() } else { "node".into() }
}

/// `grade --task N --round R --results DIR`: one array task's checks.
fn run_task(args: &GradeArgs, task: usize) -> Outcome2<i32> {
    let dir = args.results.as_deref().expect("clap requires --results with --task");
    let results = Results::new(plan::absolute(dir).map_err(Failure::BadInput)?);
    let plan = results.read_plan().map_err(Failure::BadInput)?;
    let round_no = args.round.expect("clap requires --round with --task");
    let round = slurm::read_round(&results, round_no).map_err(Failure::BadInput)?;
    let keys = round.of_task(task);
    if keys.is_empty() {
        return bad(format!("round {round_no} has no task {task} (it has {})", round.tasks()));
    }
    let mut jobs = Vec::new();
    for key in keys {
        match plan.jobs.iter().find(|j| &j.key == key) {
            Some(j) => jobs.push(j.clone()),
            None => return bad(format!("{} no longer lists the submission of key {key}", results.plan_path().display())),
        }
    }
    let checker = run::Checker::from_env().map_err(Failure::CouldNot)?;
    let mut chapters: Vec<&str> = jobs.iter().map(|j| j.exercise.chapter.as_str()).collect();
    chapters.sort();
    chapters.dedup();
    checker.ensure(&chapters).map_err(Failure::CouldNot)?;
    let node = node_name();
    let devices = run::devices();
    let workers = run::workers(&devices);
    run::stop_children_on_signal();
    let mut failure = None;
    run::pool(
        jobs,
        &workers,
        |job, device| {
            let shown = device.map_or(String::new(), |d| format!("{node}:{d}"));
            run::check_one(&checker, job, &plan.options, device, &shown)
        },
        |stored| {
            let job = plan.jobs.iter().find(|j| j.key == stored.key).expect("a job of this plan");
            say!("{} {}: {}", job.exercise, job.submission, Row::of(job, Some(&stored), None).verdict());
            if let Err(e) = results.store(&stored) {
                failure.get_or_insert(format!("{e:#}"));
            }
        },
    );
    match failure {
        Some(f) => Err(Failure::CouldNot(f)),
        None => Ok(0),
    }
}

/// `grade --slurm`: a round over what has no result yet, its scripts, and
/// (unless `--dry-run`) its submission.
fn submit(args: &GradeArgs, plan: &Plan, results: &Results, gres: Option<String>, batch: Option<usize>) -> Outcome2<i32> {
    let todo = to_check(plan, results, args.recheck);
    let exe = std::env::current_exe().map_err(|e| Failure::CouldNot(format!("cannot find this program: {e}")))?;
    if todo.is_empty() {
        if args.dry_run {
            say!("every submission has a stored result: there is nothing to submit");
            return Ok(0);
        }
        results.write_plan(plan).map_err(|e| Failure::CouldNot(format!("{e:#}")))?;
        say!("every submission has a stored result: nothing to submit; writing the gradebook");
        return collect(plan, results, args.expect, true);
    }
    let batch = batch.unwrap_or_else(|| todo.len().div_ceil(slurm::MAX_TASKS)).max(1);
    let tasks = todo.len().div_ceil(batch);
    if tasks > slurm::MAX_TASKS {
        return bad(format!("{tasks} array tasks are more than Slurm's usual limit of {}: use --batch {}", slurm::MAX_TASKS, todo.len().div_ceil(slurm::MAX_TASKS)));
    }
    let time = args.time.clone().unwrap_or_else(|| ((batch as u64 * plan.options.timeout).div_ceil(60) + 2).to_string());
    let o = slurm::SlurmOptions { partition: args.partition.clone(), gres, time, max_parallel: args.max_parallel, batch };
    let number = slurm::rounds(results).last().map_or(1, |r| r.round + 1);
    let mut round = slurm::Round { round: number, batch, keys: todo.iter().map(|j| j.key.clone()).collect(), job_id: None, collect_job_id: None };
    let array = slurm::array_script(&round, &o, &results.dir, &exe);
    let collect = slurm::collect_script(&round, &o, &results.dir, &exe);
    if args.dry_run {
        say!("# {}/round-{number}.sbatch\n{array}\n# {}/collect-{number}.sbatch\n{collect}", results.slurm_dir().display(), results.slurm_dir().display());
        return Ok(0);
    }
    let io = |e: anyhow::Error| Failure::CouldNot(format!("{e:#}"));
    results.write_plan(plan).map_err(io)?;
    let slurm_dir = results.slurm_dir();
    std::fs::create_dir_all(slurm_dir.join("logs")).map_err(|e| Failure::CouldNot(format!("cannot create {}: {e}", slurm_dir.display())))?;
    let array_path = slurm_dir.join(format!("round-{number}.sbatch"));
    let collect_path = slurm_dir.join(format!("collect-{number}.sbatch"));
    store::write_atomic(&array_path, &array).map_err(io)?;
    store::write_atomic(&collect_path, &collect).map_err(io)?;
    slurm::write_round(results, &round).map_err(io)?;
    let job = slurm::sbatch(&array_path, &[]).map_err(Failure::CouldNot)?;
    round.job_id = Some(job.clone());
    slurm::write_round(results, &round).map_err(io)?;
    let collector = slurm::sbatch(&collect_path, &[format!("--dependency=afterany:{job}")]).map_err(Failure::CouldNot)?;
    round.collect_job_id = Some(collector.clone());
    slurm::write_round(results, &round).map_err(io)?;
    say!("{job}");
    eprintln!(
        "submitted job {job}: {} submission(s) in {tasks} array task(s) (round {number}, {} already stored); job {collector} writes the gradebook when it ends: {}",
        todo.len(),
        plan.jobs.len() - todo.len(),
        results.dir.join("grades.csv").display()
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::slurm_time;

    #[test]
    fn slurm_times_are_checked() {
        for ok in ["1", "90", "0:05", "1:30:00", "2-12", "1-0:30", "1-00:00:01"] {
            assert_eq!(slurm_time(ok).as_deref(), Ok(ok), "{ok}");
        }
        for bad in ["", "0", "0:00", "1:2:3:4", "x", "-5", "1h", "1-", ":5", "1--2"] {
            assert!(slurm_time(bad).is_err(), "{bad}");
        }
    }
}
