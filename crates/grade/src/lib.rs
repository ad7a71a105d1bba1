//! `appendix_k grade`: a whole room's submissions checked against the lab
//! exercises, each submission in a process of its own (the chapter binary's
//! `check --json`), one worker per GPU, or one Slurm array task per batch;
//! the results kept per content hash so that a stopped run resumes; and
//! from them a gradebook (`grades.csv`), Gradescope's and PrairieLearn's
//! `results.json` for every submission, and a summary page.
//!
//! * [`exercise`]: the exercises, as the caller's catalogue names them;
//! * [`plan`]: submissions, manifests, and the key each result is stored under;
//! * [`points`]: the points file, and a submission's score;
//! * [`run`]: the checker's command, a check under a wall-clock limit, devices and workers;
//! * [`record`]: the checker's JSON record, as grading reads it;
//! * [`roster`]: students, whose each file is, and which one is graded;
//! * [`store`]: the results folder;
//! * [`gradebook`]: rows, `grades.csv`, Gradescope, PrairieLearn, the summary;
//! * [`slurm`]: array jobs, their scripts, and what the scheduler says of a task.
//!
//! Exit codes: 0 when every submission was checked (passing or failing), 3
//! when some need a regrade because the grader failed them (no GPU, no
//! checker, a checker that crashed or timed out, killed by the scheduler),
//! 2 on bad input (one line, before any work), and with `--expect` 1 when a
//! verdict is not the one the manifest expects.

pub mod exercise;
pub mod gradebook;
pub mod plan;
pub mod points;
pub mod record;
pub mod roster;
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
    /// A CSV file naming each submission's exercise, with the columns file,exercise and optionally expect,expect_large,expect_hidden,expect_hidden_large
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The results folder [default: ./grading]
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// The seed of the hidden battery (or KTRAV_LAB_SEED, when set): every check then runs it, reporting hidden shapes as pass or fail only; the seed reaches the checks through a file only the grader can read
    #[arg(long, value_parser = ktrav_term::cli::seed)]
    pub seed: Option<u64>,
    /// Passed to every check: add the shapes past 2^31 elements
    #[arg(long)]
    pub large: bool,
    /// Checks run at once on each GPU (without Slurm). Their shapes share the card; their timing runs take turns
    #[arg(long, default_value_t = 1, value_parser = positive(64))]
    pub checks_per_gpu: u64,
    /// Seconds one submission's check may take before it is killed (verdict: timed out)
    #[arg(long, default_value_t = 600, value_parser = positive(7 * 24 * 3600))]
    pub timeout: u64,
    /// Check again, whatever is stored: all, failed (every row that did not pass), could-not-check (every row the grader failed), or the files named (comma separated, as under the submissions folder)
    #[arg(long, value_name = "WHAT", num_args = 0..=1, require_equals = true, default_missing_value = "all", value_delimiter = ',')]
    pub regrade: Option<Vec<String>>,
    /// A roster (CSV: id,name,email and optionally extension): grade one file per student, the latest by the deadline, name each row by the student's id, list the students who submitted nothing, and write canvas.csv
    #[arg(long, value_name = "FILE", requires = "exercise")]
    pub roster: Option<PathBuf>,
    /// The points file (grading.toml): points per exercise, public and hidden, per shape or all or nothing, and a late policy
    #[arg(long, value_name = "FILE")]
    pub points: Option<PathBuf>,
    /// Let the students' results name the hidden shapes and count them (by default the hidden battery is one test, passed or not)
    #[arg(long)]
    pub publish_hidden: bool,
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
    /// Slurm: the partition of the job that writes the gradebook once the tasks end (it needs no GPU) [default: the cluster's default]
    #[arg(long, requires = "slurm", value_name = "P")]
    pub collect_partition: Option<String>,
    /// Slurm: write the job scripts and what they read, print how to submit them, and submit nothing
    #[arg(long, requires = "slurm")]
    pub dry_run: bool,
    /// Write the gradebook and the results files of RESULTS_DIR from what is stored there (after a Slurm job)
    #[arg(long, value_name = "RESULTS_DIR", conflicts_with_all = ["exercise", "manifest", "results", "slurm", "seed", "large", "regrade", "points", "publish_hidden", "roster"])]
    pub collect: Option<PathBuf>,
    /// Run array task N of a round (what the Slurm job script runs)
    #[arg(long, value_name = "N", requires_all = ["round", "results"], conflicts_with_all = ["exercise", "manifest", "slurm", "seed", "large", "regrade", "expect", "points", "publish_hidden", "roster"])]
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
    let numbers = days
        .into_iter()
        .chain(parts.iter().copied())
        .all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()));
    let shape = (1..=3).contains(&parts.len());
    if !numbers || !shape {
        return Err(format!("'{s}' is not a Slurm time (minutes, MIN:SEC, H:MIN:SEC or D-H:MIN)"));
    }
    if s.bytes().all(|b| !b.is_ascii_digit() || b == b'0') {
        return Err("a time limit of zero is none".into());
    }
    Ok(s.to_string())
}

/// Why `grade` stopped early: the message, and through its kind the exit
/// code ([`GradeError::code`]).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum GradeError {
    /// Bad input, refused in one line before any work: exit code 2.
    #[error("{0}")]
    Usage(String),
    /// Nothing could be checked or submitted (no checker, no sbatch, a
    /// results folder that cannot be written): exit code 3.
    #[error("{0}")]
    CouldNot(String),
}

impl GradeError {
    pub fn code(&self) -> i32 {
        match self {
            GradeError::Usage(_) => 2,
            GradeError::CouldNot(_) => 3,
        }
    }

    /// `e` as bad input, its whole chain of context on one line.
    fn usage(e: anyhow::Error) -> GradeError {
        GradeError::Usage(format!("{e:#}"))
    }

    /// `e` as the grader's own failure, its whole chain of context on one line.
    fn could_not(e: anyhow::Error) -> GradeError {
        GradeError::CouldNot(format!("{e:#}"))
    }
}

fn bad<T>(m: impl Into<String>) -> Result<T, GradeError> {
    Err(GradeError::Usage(m.into()))
}

/// The seed the environment names ([`ktrav::lab::SEED_ENV`]), if any.
fn env_seed() -> Result<Option<u64>, GradeError> {
    ktrav::lab::seed_from(None).map_err(GradeError::usage)
}

/// Refuses an environment seed that is not the one `plan` grades with: a
/// check that read it would grade another battery than the plan says.
fn env_agrees(plan: &Plan) -> Result<(), GradeError> {
    match (env_seed()?, plan.options.seed) {
        (Some(e), p) if Some(e) != p => bad(format!(
            "{} is set to another seed than this grading run's ({}): unset it",
            ktrav::lab::SEED_ENV,
            if p.is_some() { "a different one" } else { "none" }
        )),
        _ => Ok(()),
    }
}

/// What `--regrade` asks to check again.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Regrade {
    Nothing,
    All,
    Failed,
    CouldNotCheck,
    /// These jobs' keys.
    Keys(std::collections::BTreeSet<String>),
}

/// `--regrade`'s values as a [`Regrade`]: a word, or files, each naming a
/// submission of the plan (as under the submissions folder, with or
/// without `.cu`, or as an absolute path).
fn regrade_of(values: Option<&[String]>, plan: &Plan) -> Result<Regrade, GradeError> {
    let Some(values) = values else { return Ok(Regrade::Nothing) };
    let values: Vec<&str> = values.iter().map(|v| v.trim()).filter(|v| !v.is_empty()).collect();
    match values.as_slice() {
        [] | ["all"] => return Ok(Regrade::All),
        ["failed"] => return Ok(Regrade::Failed),
        ["could-not-check"] => return Ok(Regrade::CouldNotCheck),
        _ => {}
    }
    let mut keys = std::collections::BTreeSet::new();
    for v in values {
        let name = v.strip_suffix(".cu").unwrap_or(v);
        let path = plan::absolute(Path::new(v)).ok();
        let found: Vec<&plan::Job> = plan
            .jobs
            .iter()
            .filter(|j| {
                let base = j.submission.split('@').next().unwrap_or("");
                j.submission == name
                    || base == name
                    || path.as_ref() == Some(&j.file)
                    || plan.submissions_dir.join(v) == j.file
            })
            .collect();
        if found.is_empty() {
            return bad(format!("--regrade: '{v}' is no submission of this run (use all, failed, could-not-check, or files as under {})", plan.submissions_dir.display()));
        }
        keys.extend(found.into_iter().map(|j| j.key.clone()));
    }
    Ok(Regrade::Keys(keys))
}

/// Runs `grade` with `catalogue` as the exercises there are, and returns
/// its exit code.
pub fn grade(args: &GradeArgs, catalogue: &[ExerciseRef]) -> Result<i32, GradeError> {
    if let Some(dir) = &args.collect {
        let results = Results::new(plan::absolute(dir).map_err(GradeError::usage)?);
        let plan = results.read_plan().map_err(GradeError::usage)?;
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
    let seed = seed_of(args)?;
    let results_dir =
        plan::absolute(args.results.as_deref().unwrap_or(Path::new(DEFAULT_RESULTS))).map_err(GradeError::usage)?;
    if results_dir.exists() && !results_dir.is_dir() {
        return bad(format!("the results folder {} is a file", results_dir.display()));
    }
    let gres = gres_of(args.gres.as_deref())?;
    let roster = match &args.roster {
        Some(p) => Some(roster::read(p).map_err(GradeError::usage)?),
        None => None,
    };
    let (rows, refused) = entries(args, dir, catalogue, &results_dir)?;
    let mut graded: Vec<&ExerciseRef> = rows.iter().map(|r| &r.1).collect();
    graded.sort();
    graded.dedup();
    let points = match &args.points {
        Some(p) => points::read(p, catalogue, &graded, seed.is_some()).map_err(GradeError::usage)?,
        None => points::Points::default_for(&graded, seed.is_some()),
    };
    let mut chapters: Vec<&str> = graded.iter().map(|e| e.chapter.as_str()).collect();
    chapters.dedup();
    let checker = run::Checker::from_env().map_err(GradeError::could_not)?;
    checker.ensure(&chapters).map_err(GradeError::could_not)?;
    let builds = checker.identities(&chapters).map_err(GradeError::could_not)?;
    let options = Options::new(seed, args.large, args.timeout);
    let (rows, students) = match &roster {
        None => (rows, None),
        Some(students) => {
            let chosen = by_student(dir, rows, students, points.late.as_ref());
            (chosen.0, Some(chosen.1))
        }
    };
    let mut plan = plan::plan(dir, rows, options, builds).map_err(GradeError::usage)?;
    plan.refused = refused;
    if let (Some(students), Some(roster)) = (students, roster) {
        take_roster(&mut plan, students, roster);
    }
    plan.points = points;
    plan.publish_hidden = args.publish_hidden;
    let regrade = regrade_of(args.regrade.as_deref(), &plan)?;
    let results = Results::new(results_dir);
    if args.slurm {
        let batch = args.batch.map(|b| b as usize);
        return submit(args, &plan, &results, gres, batch, &regrade);
    }
    results.write_plan(&plan).map_err(GradeError::could_not)?;
    let todo = to_check(&plan, &results, &regrade);
    let devices = run::devices();
    check_locally(&plan, &results, &checker, todo, &devices, args.checks_per_gpu as usize, |d| {
        d.unwrap_or("").to_string()
    })?;
    collect(&plan, &results, args.expect, true)
}

/// The seed of the hidden battery: `--seed` or the environment's, which
/// must not name another.
fn seed_of(args: &GradeArgs) -> Result<Option<u64>, GradeError> {
    match (args.seed, env_seed()?) {
        (Some(a), Some(e)) if a != e => {
            bad(format!("--seed and {} name different seeds: give one", ktrav::lab::SEED_ENV))
        }
        (a, e) => Ok(a.or(e)),
    }
}

/// The `--gres` of the Slurm scripts: `gpu:1` unless given, none for `none`.
fn gres_of(gres: Option<&str>) -> Result<Option<String>, GradeError> {
    match gres {
        Some("none") => Ok(None),
        Some(g) if g.trim().is_empty() || g.contains(char::is_whitespace) => {
            bad(format!("'{g}' is not a --gres value (for example gpu:1, or none)"))
        }
        Some(g) => Ok(Some(g.to_string())),
        None => Ok(Some("gpu:1".to_string())),
    }
}

/// What to grade: with `--exercise`, every `.cu` file under `dir` against
/// it, and the entries refused; with `--manifest`, its rows.
fn entries(
    args: &GradeArgs,
    dir: &Path,
    catalogue: &[ExerciseRef],
    results_dir: &Path,
) -> Result<(Vec<plan::Entry>, Vec<plan::Refused>), GradeError> {
    match (&args.exercise, &args.manifest) {
        (Some(name), None) => {
            let exercise = exercise::find(catalogue, name).map_err(GradeError::usage)?;
            let found = plan::discover(dir, Some(results_dir)).map_err(GradeError::usage)?;
            if found.files.is_empty() {
                return bad(format!("{} holds no .cu file to grade", dir.display()));
            }
            let rows = found.files.into_iter().map(|f| (f, exercise.clone(), plan::Expect::default())).collect();
            Ok((rows, found.refused))
        }
        (None, Some(manifest)) => {
            Ok((plan::read_manifest(manifest, dir, catalogue).map_err(GradeError::usage)?, Vec::new()))
        }
        _ => unreachable!("clap's group allows one of the two"),
    }
}

/// Names each job of `plan` by the student whose file it grades, with the
/// time they submitted it and their extension; lists the students of
/// `roster` with nothing to grade as missing.
fn take_roster(
    plan: &mut Plan,
    students: Vec<(roster::Student, (PathBuf, Option<i64>))>,
    roster: Vec<roster::Student>,
) {
    for job in &mut plan.jobs {
        if let Some((s, at)) = students
            .iter()
            .find(|(_, (f, _))| plan::absolute(f).ok().as_ref() == Some(&job.file))
            .map(|(s, (_, at))| (s, at))
        {
            job.submission = s.id.clone();
            job.modified = *at;
            job.extension = s.extension_secs();
        }
    }
    plan.jobs.sort_by(|a, b| a.submission.cmp(&b.submission));
    plan.missing = roster.iter().filter(|s| !plan.jobs.iter().any(|j| j.submission == s.id)).cloned().collect();
    plan.roster = roster;
}

/// The file each student of `students` is graded on: of the files in
/// `rows` that are theirs (see [`roster::owner`]), the latest submitted by
/// the deadline and their extension, else the latest. Files of no student
/// are named on stderr and not graded.
#[allow(clippy::type_complexity)]
fn by_student(
    dir: &Path,
    rows: Vec<plan::Entry>,
    students: &[roster::Student],
    late: Option<&points::Late>,
) -> (Vec<plan::Entry>, Vec<(roster::Student, (PathBuf, Option<i64>))>) {
    let mut theirs: BTreeMap<String, Vec<(PathBuf, Option<i64>)>> = BTreeMap::new();
    let mut nobody = Vec::new();
    let exercise = rows.first().map(|r| r.1.clone());
    for (file, ..) in &rows {
        let relative = file.strip_prefix(dir).unwrap_or(file);
        match roster::owner(relative, students) {
            Some(s) => theirs.entry(s.id.clone()).or_default().push((file.clone(), roster::submitted_at(file))),
            None => nobody.push(relative.display().to_string()),
        }
    }
    if !nobody.is_empty() {
        eprintln!(
            "{} file(s) belong to no student of the roster and are not graded: {}",
            nobody.len(),
            nobody.join(", ")
        );
    }
    let mut entries = Vec::new();
    let mut chosen = Vec::new();
    for s in students {
        let Some(files) = theirs.get(&s.id) else { continue };
        let deadline = late.map(|l| l.deadline.saturating_add(s.extension_secs()));
        if let (Some(pick), Some(ex)) = (roster::choose(files, deadline), &exercise) {
            entries.push((pick.0.clone(), ex.clone(), plan::Expect::default()));
            chosen.push((s.clone(), pick));
        }
    }
    (entries, chosen)
}

/// The jobs to check: one per key that has no stored result, or whose
/// stored result `regrade` asks to check again, in plan order.
fn to_check(plan: &Plan, results: &Results, regrade: &Regrade) -> Vec<plan::Job> {
    let mut seen = std::collections::BTreeSet::new();
    plan.jobs
        .iter()
        .filter(|j| match results.stored(&j.key) {
            None => true,
            Some(s) => {
                let outcome = || Row::of(j, Some(&s), None).outcome;
                match regrade {
                    Regrade::Nothing => false,
                    Regrade::All => true,
                    Regrade::Failed => outcome() != Outcome::Pass,
                    Regrade::CouldNotCheck => outcome().needs_regrade(),
                    Regrade::Keys(keys) => keys.contains(&j.key),
                }
            }
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
    per_gpu: usize,
    shown: impl Fn(Option<&str>) -> String + Sync,
) -> Result<(), GradeError> {
    let total = todo.len() as u64;
    let workers = run::workers(devices, per_gpu);
    let already = plan.jobs.len() - todo.len();
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("grading {pos}/{len} [{bar:30}] {elapsed} {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    if !bar.is_hidden() {
        let gpus = if devices.is_empty() {
            "no GPU found".to_string()
        } else {
            format!("{} GPU(s): {}", devices.len(), devices.join(", "))
        };
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
            run::check_one(checker, job, &plan.options, &results.seed_path(), device, &shown(device))
        },
        |checked| {
            let stored = match checked {
                run::Checked::Done(stored) => stored,
                run::Checked::Stopped { key, why } => {
                    let job = plan.jobs.iter().find(|j| j.key == key).expect("a job of this plan");
                    bar.suspend(|| {
                        eprintln!("{} {}: stopped from outside ({why}); no result stored", job.exercise, job.submission)
                    });
                    bar.inc(1);
                    return;
                }
            };
            if let Err(e) = results.store(&stored) {
                failure.get_or_insert(format!("{e:#}"));
            }
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    match failure {
        Some(f) => Err(GradeError::CouldNot(f)),
        None => Ok(()),
    }
}

/// Writes the gradebook and every results file of `plan` from what is
/// stored (asking Slurm about the tasks that stored nothing), prints where
/// they are and what they say, and returns the exit code.
pub fn collect(plan: &Plan, results: &Results, expect: bool, print: bool) -> Result<i32, GradeError> {
    let missing: Vec<String> =
        plan.jobs.iter().filter(|j| results.stored(&j.key).is_none()).map(|j| j.key.clone()).collect();
    let tasks = if missing.is_empty() { BTreeMap::new() } else { slurm::states_of_missing(results, &missing) };
    let rows = gradebook::rows(plan, results, &tasks);
    gradebook::write_all(plan, results, &rows).map_err(GradeError::could_not)?;
    if !plan.refused.is_empty() {
        let summary = results.dir.join("summary.md");
        let text = std::fs::read_to_string(&summary).unwrap_or_default() + &refused_section(&plan.refused);
        store::write_atomic(&summary, &text).map_err(GradeError::could_not)?;
    }
    let counts: Vec<String> = Outcome::ALL
        .iter()
        .filter_map(|o| {
            let n = rows.iter().filter(|r| r.outcome == *o).count();
            (n > 0).then(|| format!("{n} {}", o.as_str()))
        })
        .collect();
    let regrade = rows.iter().filter(|r| r.outcome.needs_regrade()).count();
    let identical = rows.iter().filter(|r| !r.identical_to.is_empty()).count();
    if print {
        say!("{} submissions: {}", rows.len(), counts.join(", "));
        for r in &plan.refused {
            say!("refused: {}: {}", r.file, r.why);
        }
        if regrade > 0 {
            say!(
                "{regrade} need{} a regrade: the grader failed {} (see the note column), so {} no score; fix the cause and run the same command with --regrade=could-not-check",
                if regrade == 1 { "s" } else { "" },
                if regrade == 1 { "it" } else { "them" },
                if regrade == 1 { "it has" } else { "they have" },
            );
        }
        if identical > 0 {
            say!("{identical} identical to another submission once comments and white space are removed (column identical_to)");
        }
        say!("gradebook: {}", results.dir.join("grades.csv").display());
        say!("summary: {}", results.dir.join("summary.md").display());
        say!(
            "Gradescope and PrairieLearn: {}/{{gradescope,prairielearn}}/SUBMISSION/results.json",
            results.dir.display()
        );
    }
    if expect {
        let wrong = gradebook::unexpected(plan, &rows);
        let expected = plan.jobs.iter().filter(|j| j.expected(&plan.options).is_some()).count();
        for (row, e) in &wrong {
            say!(
                "unexpected: {} {}: expected {e}, got {}{}",
                row.exercise,
                row.submission,
                row.verdict(),
                if row.note.is_empty() { String::new() } else { format!(" ({})", row.note) }
            );
        }
        say!("{} of {expected} verdicts as the manifest expects", expected - wrong.len());
        if !wrong.is_empty() {
            return Ok(1);
        }
    }
    Ok(if regrade > 0 { 3 } else { 0 })
}

/// The summary's list of the `.cu` entries refused, not graded.
fn refused_section(refused: &[plan::Refused]) -> String {
    let mut md = format!(
        "\n## Refused, not graded\n\n{} entr{} named `.cu` not graded:\n\n",
        refused.len(),
        if refused.len() == 1 { "y" } else { "ies" }
    );
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
    if ok {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "node".into()
    }
}

/// `grade --task N --round R --results DIR`: one array task's checks.
fn run_task(args: &GradeArgs, task: usize) -> Result<i32, GradeError> {
    let dir = args.results.as_deref().expect("clap requires --results with --task");
    let results = Results::new(plan::absolute(dir).map_err(GradeError::usage)?);
    let plan = results.read_plan().map_err(GradeError::usage)?;
    env_agrees(&plan)?;
    let round_no = args.round.expect("clap requires --round with --task");
    let round = slurm::read_round(&results, round_no).map_err(GradeError::usage)?;
    let keys = round.of_task(task);
    if keys.is_empty() {
        return bad(format!("round {round_no} has no task {task} (it has {})", round.tasks()));
    }
    let mut jobs = Vec::new();
    for key in keys {
        match plan.jobs.iter().find(|j| &j.key == key) {
            Some(j) => jobs.push(j.clone()),
            None => {
                return bad(format!("{} no longer lists the submission of key {key}", results.plan_path().display()))
            }
        }
    }
    let checker = run::Checker::from_env().map_err(GradeError::could_not)?;
    let mut chapters: Vec<&str> = jobs.iter().map(|j| j.exercise.chapter.as_str()).collect();
    chapters.sort();
    chapters.dedup();
    checker.ensure(&chapters).map_err(GradeError::could_not)?;
    // A result is stored under its checker's build: a rebuilt checker
    // would store results under keys no plan names.
    for (chapter, build) in checker.identities(&chapters).map_err(GradeError::could_not)? {
        if plan.builds.get(&chapter) != Some(&build) {
            return Err(GradeError::CouldNot(format!(
                "the checker {} is not the build this round was planned with: run the same grade --slurm again to plan a round for it",
                checker.program(&chapter).display()
            )));
        }
    }
    let node = node_name();
    let devices = run::devices();
    let workers = run::workers(&devices, 1);
    run::stop_children_on_signal();
    let mut failure = None;
    run::pool(
        jobs,
        &workers,
        |job, device| {
            let shown = device.map_or(String::new(), |d| format!("{node}:{d}"));
            run::check_one(&checker, job, &plan.options, &results.seed_path(), device, &shown)
        },
        |checked| {
            let stored = match checked {
                run::Checked::Done(stored) => stored,
                run::Checked::Stopped { key, why } => {
                    let job = plan.jobs.iter().find(|j| j.key == key).expect("a job of this plan");
                    say!("{} {}: stopped from outside ({why}); no result stored", job.exercise, job.submission);
                    return;
                }
            };
            let job = plan.jobs.iter().find(|j| j.key == stored.key).expect("a job of this plan");
            say!("{} {}: {}", job.exercise, job.submission, Row::of(job, Some(&stored), None).verdict());
            if let Err(e) = results.store(&stored) {
                failure.get_or_insert(format!("{e:#}"));
            }
        },
    );
    match failure {
        Some(f) => Err(GradeError::CouldNot(f)),
        None => Ok(0),
    }
}

/// `grade --slurm`: a round over what has no result yet (or what
/// `--regrade` asks for) and that no queued or running task of an earlier
/// round covers, its scripts, and (unless `--dry-run`) its submission.
fn submit(
    args: &GradeArgs,
    plan: &Plan,
    results: &Results,
    gres: Option<String>,
    batch: Option<usize>,
    regrade: &Regrade,
) -> Result<i32, GradeError> {
    let wanted = to_check(plan, results, regrade);
    let covered = slurm::covered(results).map_err(GradeError::could_not)?;
    let todo: Vec<plan::Job> = wanted.iter().filter(|j| !covered.contains_key(&j.key)).cloned().collect();
    let exe = std::env::current_exe().map_err(|e| GradeError::CouldNot(format!("cannot find this program: {e}")))?;
    let io = |e: anyhow::Error| GradeError::could_not(e);
    if todo.is_empty() {
        return nothing_to_submit(args, plan, results, &wanted, &covered);
    }
    let (o, tasks) = round_options(args, plan, &todo, gres, batch)?;
    let (mem_mb, cpus) = (o.mem_mb, o.cpus);
    let number = slurm::rounds(results).last().map_or(1, |r| r.round + 1);
    let mut round = slurm::Round {
        round: number,
        batch: o.batch,
        keys: todo.iter().map(|j| j.key.clone()).collect(),
        job_id: None,
        collect_job_id: None,
    };
    let array = slurm::array_script(&round, &o, &results.dir, &exe);
    let collect = slurm::collect_script(&round, &o, &results.dir, &exe);
    results.write_plan(plan).map_err(io)?;
    let slurm_dir = results.slurm_dir();
    std::fs::create_dir_all(slurm_dir.join("logs"))
        .map_err(|e| GradeError::CouldNot(format!("cannot create {}: {e}", slurm_dir.display())))?;
    let array_path = slurm_dir.join(format!("round-{number}.sbatch"));
    let collect_path = slurm_dir.join(format!("collect-{number}.sbatch"));
    store::write_atomic(&array_path, &array).map_err(io)?;
    store::write_atomic(&collect_path, &collect).map_err(io)?;
    slurm::write_round(results, &round).map_err(io)?;
    if args.dry_run {
        say!("wrote round {number}: {} submission(s) in {tasks} array task(s), each with --mem={mem_mb}M --cpus-per-task={cpus}; nothing was submitted. To submit it (after adapting the scripts, if need be):", todo.len());
        say!("  job=$(sbatch --parsable {})", slurm::quoted(&array_path));
        say!("  sbatch --dependency=afterany:$job {}", slurm::quoted(&collect_path));
        return Ok(0);
    }
    let job = slurm::sbatch(&array_path, &[]).map_err(GradeError::could_not)?;
    round.job_id = Some(job.clone());
    slurm::write_round(results, &round).map_err(io)?;
    let collector =
        slurm::sbatch(&collect_path, &[format!("--dependency=afterany:{job}")]).map_err(GradeError::could_not)?;
    round.collect_job_id = Some(collector.clone());
    slurm::write_round(results, &round).map_err(io)?;
    say!("{job}");
    eprintln!(
        "submitted job {job}: {} submission(s) in {tasks} array task(s) (round {number}, {} already stored, {} queued or running already); job {collector} writes the gradebook when it ends: {}",
        todo.len(),
        plan.jobs.len() - wanted.len(),
        wanted.len() - todo.len(),
        results.dir.join("grades.csv").display()
    );
    Ok(0)
}

/// `grade --slurm` with every wanted submission stored or covered by a job
/// still queued or running: says so, and writes the gradebook when nothing
/// is pending (and this is no dry run).
fn nothing_to_submit(
    args: &GradeArgs,
    plan: &Plan,
    results: &Results,
    wanted: &[plan::Job],
    covered: &BTreeMap<String, String>,
) -> Result<i32, GradeError> {
    if !wanted.is_empty() {
        let mut jobs: Vec<&str> = wanted.iter().filter_map(|j| covered.get(&j.key).map(String::as_str)).collect();
        jobs.sort();
        jobs.dedup();
        say!(
            "nothing to submit: the {} submission(s) without a result are queued or running in job {}; once it ends, its collect job writes the gradebook",
            wanted.len(),
            jobs.join(", ")
        );
        return Ok(0);
    }
    if args.dry_run {
        say!("every submission has a stored result: there is nothing to submit");
        return Ok(0);
    }
    results.write_plan(plan).map_err(GradeError::could_not)?;
    say!("every submission has a stored result: nothing to submit; writing the gradebook");
    collect(plan, results, args.expect, true)
}

/// The Slurm options of a round over `todo`, and its number of array
/// tasks: submissions per task (`--batch`, or as few as keep the tasks
/// within Slurm's usual limit), time, memory and CPUs per task.
fn round_options(
    args: &GradeArgs,
    plan: &Plan,
    todo: &[plan::Job],
    gres: Option<String>,
    batch: Option<usize>,
) -> Result<(slurm::SlurmOptions, usize), GradeError> {
    let batch = batch.unwrap_or_else(|| todo.len().div_ceil(slurm::MAX_TASKS)).max(1);
    let tasks = todo.len().div_ceil(batch);
    if tasks > slurm::MAX_TASKS {
        return bad(format!(
            "{tasks} array tasks are more than Slurm's usual limit of {}: use --batch {}",
            slurm::MAX_TASKS,
            todo.len().div_ceil(slurm::MAX_TASKS)
        ));
    }
    let time =
        args.time.clone().unwrap_or_else(|| ((batch as u64 * plan.options.timeout).div_ceil(60) + 2).to_string());
    let largest = todo.iter().map(|j| j.exercise.bytes.of(plan.options.seeded, plan.options.large)).max().unwrap_or(0);
    let (mem_mb, cpus) = slurm::resources(largest);
    let o = slurm::SlurmOptions {
        partition: args.partition.clone(),
        collect_partition: args.collect_partition.clone(),
        gres,
        time,
        max_parallel: args.max_parallel,
        batch,
        mem_mb,
        cpus,
    };
    Ok((o, tasks))
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
