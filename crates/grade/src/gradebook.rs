//! From stored results to what an instructor reads: one row per
//! submission, the gradebook `grades.csv`, each submission's Gradescope and
//! PrairieLearn `results.json`, and the summary page. The same code serves
//! a local run and `--collect` after a Slurm job.
//!
//! Two rules hold for everything a student sees (Gradescope's and
//! PrairieLearn's files): a failure of the grader (the check could not be
//! made, was killed, timed out, its checker crashed, or it never ran) is no
//! score at all, only a note that the submission will be graded again, with
//! nothing of the grading machine in it; and until the instructor publishes
//! them (`--publish-hidden`), no hidden shape is named or counted: the
//! hidden battery is one test, passed or not.

use crate::plan::{Expectation, Job, Plan};
use crate::points::{self, Late, Score, Scoring, Worth};
use crate::record::{Battery, CheckRecord, Failure, ShapeRecord};
use crate::store::{write_atomic, Ended, Results, Stored};
use ktrav::lab::{CheckOutcome, FailureKind};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The gradebook's columns, in order.
pub const COLUMNS: [&str; 19] = [
    "submission",
    "exercise",
    "outcome",
    "status",
    "score",
    "max_score",
    "days_late",
    "public_passed",
    "public_total",
    "hidden_passed",
    "hidden_total",
    "skipped",
    "share_of_copy",
    "compile_error",
    "failures",
    "first_failing_shape",
    "identical_to",
    "device",
    "note",
];

/// The `status` of a row whose check failed for the grader's sake.
pub const NEEDS_REGRADE: &str = "needs regrade";

/// What a student is told of a submission the grader failed to check.
pub const NOT_GRADED: &str = "Not graded yet: the grading machine could not check this submission. \
Nothing is counted against you; it will be graded again.";

/// What became of one submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Every shape passed (or was skipped for want of device memory).
    Pass,
    /// Some shape failed, or the file has no kernel of the exercise's name.
    Fail,
    CompileError,
    /// The check ran past its limit (the grader's `--timeout`, or Slurm's
    /// time limit) and was killed. The checker's own watchdog stops a
    /// kernel that never finishes (a shape's `did not finish`), so this is
    /// the grading machine's limit, not a verdict on the kernel.
    TimedOut,
    /// The checker's own process died of a signal (out of memory, say) or
    /// printed no valid record: `checker crashed`, a failure of the grader.
    /// A kernel that crashes is a shape's verdict inside a record (the
    /// failure kind `crashed`), not this.
    CheckerCrashed,
    /// The checker could not check (no GPU, no NVRTC, or it refused).
    CouldNotCheck,
    /// The scheduler ended the task otherwise (cancelled, node failure, ...).
    Killed,
    /// No result, and nothing says why.
    NotChecked,
    /// A student of the roster submitted no file.
    Missing,
}

impl Outcome {
    pub const ALL: [Outcome; 9] = [
        Outcome::Pass,
        Outcome::Fail,
        Outcome::CompileError,
        Outcome::TimedOut,
        Outcome::CheckerCrashed,
        Outcome::CouldNotCheck,
        Outcome::Killed,
        Outcome::NotChecked,
        Outcome::Missing,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::CompileError => "compile error",
            Outcome::TimedOut => "timed out",
            Outcome::CheckerCrashed => "checker crashed",
            Outcome::CouldNotCheck => "could not check",
            Outcome::Killed => "killed",
            Outcome::NotChecked => "not checked",
            Outcome::Missing => "missing",
        }
    }

    /// Whether the verdict is about the grader (the machine, the checker's
    /// process, the scheduler), not the submission: such a row gets no
    /// score and is to be checked again (`--regrade could-not-check`).
    pub fn needs_regrade(self) -> bool {
        !matches!(self, Outcome::Pass | Outcome::Fail | Outcome::CompileError | Outcome::Missing)
    }
}

/// What the scheduler says of a task that stored no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskState {
    /// Slurm's state: `TIMEOUT`, `CANCELLED`, `NODE_FAIL`, `PENDING`, ...
    pub state: Option<String>,
    /// Where the state came from, or why it is not known.
    pub source: String,
}

/// One row of the gradebook, with what the per-submission files need.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub submission: String,
    pub exercise: String,
    pub outcome: Outcome,
    /// Shapes passed and run, per battery; a skipped shape counts in
    /// neither, and in `skipped`.
    pub public: (usize, usize),
    pub hidden: (usize, usize),
    pub skipped: usize,
    pub share_of_copy: Option<f64>,
    /// The compiler's first line, for a compile error.
    pub compile_error: String,
    /// The kinds of failure seen on any shape, in order of first sight.
    pub failures: Vec<Failure>,
    pub first_failing_shape: String,
    pub device: String,
    /// For the instructor: the checker's reason, or what the grader saw.
    pub note: String,
    pub shapes: Vec<ShapeRecord>,
    pub compile_log: String,
    /// What the exercise is worth.
    pub worth: Worth,
    /// The score; none where the grader failed.
    pub score: Option<Score>,
    /// The other submissions of the same exercise that are the same file
    /// once comments and white space are removed.
    pub identical_to: Vec<String>,
    /// Whether student-visible files may name and count hidden shapes.
    pub publish_hidden: bool,
}

/// `items` written one after another with `sep` between them.
fn joined<T: std::fmt::Display>(items: &[T], sep: &str) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(sep)
}

fn one_line(s: &str) -> String {
    s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string()
}

impl Row {
    fn empty(job: &Job, outcome: Outcome, note: String) -> Row {
        Row {
            submission: job.submission.clone(),
            exercise: job.exercise.to_string(),
            outcome,
            public: (0, 0),
            hidden: (0, 0),
            skipped: 0,
            share_of_copy: None,
            compile_error: String::new(),
            failures: Vec::new(),
            first_failing_shape: String::new(),
            device: String::new(),
            note,
            shapes: Vec::new(),
            compile_log: String::new(),
            worth: points::default_worth(false),
            score: None,
            identical_to: Vec::new(),
            publish_hidden: false,
        }
    }

    /// The row of `job` from its stored result, or from what the scheduler
    /// says of it when there is none, scored with the default points (see
    /// [`Row::scored`]).
    pub fn of(job: &Job, stored: Option<&Stored>, task: Option<&TaskState>) -> Row {
        let row = Row::unscored(job, stored, task);
        let seeded = row.hidden.1 > 0;
        row.scored(points::default_worth(seeded), None, None)
    }

    fn unscored(job: &Job, stored: Option<&Stored>, task: Option<&TaskState>) -> Row {
        let Some(stored) = stored else {
            return match task {
                Some(t) => {
                    let (outcome, what) = match t.state.as_deref() {
                        Some("TIMEOUT") => {
                            (Outcome::TimedOut, "Slurm stopped the task at its time limit (TIMEOUT)".to_string())
                        }
                        Some(s @ ("PENDING" | "RUNNING" | "REQUEUED" | "SUSPENDED" | "CONFIGURING" | "COMPLETING")) => {
                            (Outcome::NotChecked, format!("the task had not finished ({s})"))
                        }
                        Some(s) if s.starts_with("CANCELLED") => {
                            (Outcome::Killed, format!("the task was cancelled ({s})"))
                        }
                        Some(s) => (Outcome::Killed, format!("the task ended without a result ({s})")),
                        None => (Outcome::NotChecked, "the task's state is unknown".to_string()),
                    };
                    Row::empty(job, outcome, format!("{what}; {}", t.source))
                }
                None => Row::empty(
                    job,
                    Outcome::NotChecked,
                    "no result stored: the run, or this check, was stopped before it ended".into(),
                ),
            };
        };
        let mut row = Row::empty(job, Outcome::CheckerCrashed, stored.detail.clone().unwrap_or_default());
        row.device = stored.device.clone();
        match stored.ended {
            Ended::TimedOut => row.outcome = Outcome::TimedOut,
            Ended::Crashed => row.outcome = Outcome::CheckerCrashed,
            Ended::NotRun => row.outcome = Outcome::CouldNotCheck,
            Ended::Record => {
                let Some(record) = stored.record.clone().and_then(CheckRecord::from_value) else {
                    row.note = "the stored record cannot be read".into();
                    return row;
                };
                row.fill(record);
            }
        }
        row
    }

    fn fill(&mut self, record: CheckRecord) {
        let reason = record.reason.clone().unwrap_or_default();
        self.compile_log = record.compile_log.clone().unwrap_or_default();
        self.note = one_line(&reason);
        self.outcome = match record.outcome {
            CheckOutcome::Pass => Outcome::Pass,
            CheckOutcome::CouldNotCheck => Outcome::CouldNotCheck,
            _ if record.does_not_compile() => {
                self.compile_error = match one_line(&self.compile_log) {
                    l if l.is_empty() => one_line(&reason),
                    l => l,
                };
                Outcome::CompileError
            }
            CheckOutcome::Fail | CheckOutcome::Compiles => Outcome::Fail,
        };
        for s in &record.shapes {
            if s.skipped() {
                self.skipped += 1;
                continue;
            }
            let tally = if s.battery == Battery::Hidden { &mut self.hidden } else { &mut self.public };
            tally.1 += 1;
            tally.0 += s.passed() as usize;
            if s.failed() && self.first_failing_shape.is_empty() && !s.not_run() {
                self.first_failing_shape = s.label.clone();
            }
            for k in s.kinds() {
                if !self.failures.contains(&k) {
                    self.failures.push(k);
                }
            }
        }
        self.share_of_copy = record.timing.and_then(|t| t.share_of_copy);
        self.shapes = record.shapes;
    }

    /// The row scored as `worth` says, with the late policy applied to a
    /// file last changed at `modified`. A skipped shape earns nothing, and
    /// is counted with the battery's shapes: the points of a battery are
    /// shared among every shape it has. A row the grader failed has no score.
    pub fn scored(mut self, worth: Worth, late: Option<&Late>, modified: Option<i64>) -> Row {
        self.worth = worth;
        self.score = (!self.outcome.needs_regrade()).then(|| {
            let (public_skipped, hidden_skipped) = self.skipped_by_battery();
            let public = (self.public.0, self.public.1 + public_skipped);
            let hidden = (self.hidden.0, self.hidden.1 + hidden_skipped);
            points::score(&worth, public, hidden, late, modified)
        });
        self
    }

    fn skipped_by_battery(&self) -> (usize, usize) {
        let of = |b: Battery| self.shapes.iter().filter(|s| s.skipped() && s.battery == b).count();
        (of(Battery::Public), of(Battery::Hidden))
    }

    /// The gradebook line, in [`COLUMNS`] order.
    pub fn fields(&self) -> Vec<String> {
        let number = |v: f64| format!("{}", points::round(v));
        vec![
            self.submission.clone(),
            self.exercise.clone(),
            self.outcome.as_str().into(),
            if self.outcome.needs_regrade() { NEEDS_REGRADE.into() } else { "graded".into() },
            self.score.as_ref().map_or(String::new(), |s| number(s.score)),
            number(self.worth.total()),
            self.score.as_ref().map_or(String::new(), |s| s.days_late.to_string()),
            self.public.0.to_string(),
            self.public.1.to_string(),
            self.hidden.0.to_string(),
            self.hidden.1.to_string(),
            self.skipped.to_string(),
            self.share_of_copy.map_or(String::new(), |s| format!("{s:.3}")),
            self.compile_error.clone(),
            joined(&self.failures, "; "),
            self.first_failing_shape.clone(),
            self.identical_to.join("; "),
            self.device.clone(),
            self.note.clone(),
        ]
    }

    /// Whether this row shows the verdict a manifest expects: `fail` is any
    /// failed check; a kind such as `wrong` is a failed check showing that
    /// kind on some shape; `no kernel` a failed check that ran no shape and
    /// is not a compile error; `crashed` a check whose kernel crashed on
    /// some shape, or whose checker crashed (the outcome `checker crashed`).
    /// A private hidden shape (what a seeded grade reports) shows no kind,
    /// so a kind is met by its failure where no public shape failed: the
    /// GPU suite holds each hidden failure to its kind.
    pub fn meets(&self, expect: Expectation) -> bool {
        let public_failed = self.shapes.iter().any(|s| s.battery == Battery::Public && s.failed());
        let private_failed =
            self.shapes.iter().any(|s| s.battery == Battery::Hidden && s.failed() && s.rows == 0 && s.cols == 0);
        let failed_with = |kind: FailureKind| {
            self.outcome == Outcome::Fail
                && (self.failures.contains(&Failure::Kind(kind)) || (private_failed && !public_failed))
        };
        match expect {
            Expectation::Pass => self.outcome == Outcome::Pass,
            Expectation::Fail => self.outcome == Outcome::Fail,
            Expectation::CompileError => self.outcome == Outcome::CompileError,
            Expectation::NoKernel => self.outcome == Outcome::Fail && self.shapes.is_empty(),
            Expectation::Kind(FailureKind::Crashed) => {
                self.outcome == Outcome::CheckerCrashed || failed_with(FailureKind::Crashed)
            }
            Expectation::TimedOut => self.outcome == Outcome::TimedOut,
            Expectation::CouldNotCheck => self.outcome == Outcome::CouldNotCheck,
            Expectation::Kind(kind) => failed_with(kind),
        }
    }

    /// The verdict in a few words, for the instructor: the outcome, and the
    /// kinds of failure.
    pub fn verdict(&self) -> String {
        match self.failures.is_empty() {
            true => self.outcome.as_str().to_string(),
            false => format!("{} ({})", self.outcome.as_str(), joined(&self.failures, ", ")),
        }
    }

    /// The shapes a student may see in detail: the public ones, and the
    /// hidden ones once published.
    fn shown(&self, s: &ShapeRecord) -> bool {
        s.battery == Battery::Public || self.publish_hidden
    }

    /// What a student is told in one paragraph: the verdict with the kinds
    /// of failure their shown shapes had, the counts of shown shapes, why
    /// the check failed before any shape ran, and the score.
    fn student_summary(&self) -> String {
        let mut kinds: Vec<Failure> = Vec::new();
        for s in self.shapes.iter().filter(|s| self.shown(s)) {
            for k in s.kinds() {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
        }
        let mut line = format!("{} {}: {}", self.exercise, self.submission, self.outcome.as_str());
        if !kinds.is_empty() {
            line.push_str(&format!(" ({})", joined(&kinds, ", ")));
        }
        let (pp, pt) = self.public;
        if pt > 0 {
            line.push_str(&format!("; {pp} of {pt} public shapes pass"));
        }
        let (public_skipped, hidden_skipped) = self.skipped_by_battery();
        let skipped = public_skipped + if self.publish_hidden { hidden_skipped } else { 0 };
        if skipped > 0 {
            line.push_str(&format!("; {skipped} skipped on the grading machine (not counted as passed)"));
        }
        let (hp, ht) = self.hidden;
        if ht > 0 && self.publish_hidden {
            line.push_str(&format!("; {hp} of {ht} hidden shapes pass"));
        }
        if self.shapes.is_empty() && !self.note.is_empty() {
            line.push_str(&format!("; {}", self.note));
        }
        if let Some(s) = &self.score {
            let number = |v: f64| format!("{}", points::round(v));
            line.push_str(&format!("\nScore: {} of {}", number(s.score), number(s.max)));
            if s.days_late > 0 {
                line.push_str(&format!(
                    " ({} before the late policy; {} day{} late)",
                    number(s.earned),
                    s.days_late,
                    if s.days_late == 1 { "" } else { "s" }
                ));
            }
        }
        line
    }

    /// The tests a student's file lists, as (name, score, max, passed,
    /// text, shown now): the public battery shape by shape (or as one test,
    /// all or nothing), and the hidden battery as one test shown only once
    /// the grades are published, unless its shapes are published.
    fn tests(&self) -> Vec<Test> {
        let w = self.worth;
        if self.shapes.is_empty() {
            let text = if self.outcome == Outcome::CompileError {
                "the file does not compile".to_string()
            } else {
                self.note.clone()
            };
            return vec![Test {
                name: format!("{}: the check", self.exercise),
                score: 0.0,
                max: w.total(),
                passed: false,
                text,
                visible: true,
            }];
        }
        let mut tests = Vec::new();
        for battery in [Battery::Public, Battery::Hidden] {
            let shapes: Vec<&ShapeRecord> = self.shapes.iter().filter(|s| s.battery == battery).collect();
            let points = if battery == Battery::Public { w.public } else { w.hidden };
            if shapes.is_empty() {
                continue;
            }
            let passed = shapes.iter().filter(|s| s.passed()).count();
            let detailed = battery == Battery::Public || self.publish_hidden;
            let earned = points::battery(points, w.scoring, passed, shapes.len());
            match (detailed, w.scoring) {
                (false, _) => tests.push(Test {
                    name: format!("{}: hidden tests", self.exercise),
                    score: earned,
                    max: points,
                    passed: passed == shapes.len(),
                    text: if passed == shapes.len() {
                        "Every hidden test passes.".into()
                    } else {
                        "Not every hidden test passes.".into()
                    },
                    visible: false,
                }),
                (true, Scoring::PerShape) => {
                    for s in &shapes {
                        let each = points / shapes.len() as f64;
                        tests.push(Test {
                            name: format!("{} {} shape: {}", self.exercise, battery.name(), s.label),
                            score: if s.passed() { each } else { 0.0 },
                            max: each,
                            passed: s.passed(),
                            text: shape_text(s),
                            visible: true,
                        });
                    }
                }
                (true, Scoring::AllOrNothing) => tests.push(Test {
                    name: format!("{} {} shapes (all must pass)", self.exercise, battery.name()),
                    score: earned,
                    max: points,
                    passed: passed == shapes.len(),
                    text: shapes
                        .iter()
                        .map(|s| format!("{}: {}", s.label, shape_text(s)))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    visible: true,
                }),
            }
        }
        tests
    }
}

/// A shape's line as a student reads it: a hidden shape, even one
/// reported with its size, only passes, fails or is skipped.
fn shape_text(s: &ShapeRecord) -> String {
    match s.battery {
        Battery::Hidden if s.passed() => "pass".into(),
        Battery::Hidden if s.skipped() => "skipped".into(),
        Battery::Hidden => "fail".into(),
        Battery::Public => s.describe(),
    }
}

/// One test of a student's file.
struct Test {
    name: String,
    score: f64,
    max: f64,
    passed: bool,
    text: String,
    /// Shown at once; else only once the grades are published.
    visible: bool,
}

/// The rows of a plan, in its order, scored with the plan's points, with
/// identical submissions flagged.
pub fn rows(plan: &Plan, results: &Results, tasks: &BTreeMap<String, TaskState>) -> Vec<Row> {
    let mut rows: Vec<Row> = plan
        .jobs
        .iter()
        .map(|j| {
            let ex = j.exercise.to_string();
            let worth = match plan.points.exercises.get(&ex) {
                Some(w) => *w,
                None => points::default_worth(plan.options.seeded),
            };
            // A student's extension moves the deadline.
            let late = plan
                .points
                .late
                .as_ref()
                .map(|l| Late { deadline: l.deadline.saturating_add(j.extension), ..l.clone() });
            let mut row = Row::unscored(j, results.stored(&j.key).as_ref(), tasks.get(&j.key)).scored(
                worth,
                late.as_ref(),
                j.modified,
            );
            row.publish_hidden = plan.publish_hidden;
            row
        })
        .collect();
    // With a roster, a student who submitted nothing gets a row scoring 0.
    let exercise = plan
        .jobs
        .first()
        .map(|j| j.exercise.to_string())
        .or_else(|| plan.points.exercises.keys().next().cloned())
        .unwrap_or_default();
    for s in &plan.missing {
        let worth =
            plan.points.exercises.get(&exercise).copied().unwrap_or_else(|| points::default_worth(plan.options.seeded));
        let job = Job {
            submission: s.id.clone(),
            file: Default::default(),
            exercise: plan
                .jobs
                .first()
                .map(|j| j.exercise.clone())
                .unwrap_or_else(|| crate::exercise::ExerciseRef::new("", "", &exercise)),
            key: String::new(),
            expect: Default::default(),
            normalized: String::new(),
            modified: None,
            extension: 0,
        };
        let mut row = Row::empty(&job, Outcome::Missing, "no file of this student was found".into());
        row.exercise = exercise.clone();
        row.worth = worth;
        row.score = Some(Score { earned: 0.0, max: points::round(worth.total()), days_late: 0, score: 0.0 });
        rows.push(row);
    }
    let mut groups: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (i, j) in plan.jobs.iter().enumerate() {
        if !j.normalized.is_empty() {
            groups.entry((j.exercise.id.as_str(), j.normalized.as_str())).or_default().push(i);
        }
    }
    for same in groups.values().filter(|g| g.len() > 1) {
        for &i in same {
            rows[i].identical_to = same.iter().filter(|&&k| k != i).map(|&k| plan.jobs[k].submission.clone()).collect();
        }
    }
    rows
}

/// `grades.csv`.
pub fn csv(rows: &[Row]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS).expect("writing to memory");
    for r in rows {
        w.write_record(r.fields()).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("the fields are text")
}

/// The most of a compiler's log put into a results file.
const LOG_CAP: usize = 8 << 10;

fn capped(log: &str) -> String {
    if log.len() <= LOG_CAP {
        return log.to_string();
    }
    let mut end = LOG_CAP;
    while !log.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... the rest of the log is cut]", &log[..end])
}

/// Gradescope's `results.json` for one submission: the row's tests (public
/// shapes `visible`, the hidden battery `after_published`), the score
/// after the late policy, and the share of the copy's speed on the
/// leaderboard when the kernel was timed. A row the grader failed has no
/// score at all, so Gradescope reports the autograder as failed rather
/// than a student's 0, and `grade` exits 3.
pub fn gradescope(row: &Row) -> Value {
    if row.outcome.needs_regrade() {
        return json!({
            "output": NOT_GRADED,
            "extra_data": { "exercise": row.exercise, "outcome": row.outcome.as_str(), "status": NEEDS_REGRADE },
        });
    }
    let tests: Vec<Value> = row
        .tests()
        .into_iter()
        .map(|t| {
            json!({
                "name": t.name,
                "score": t.score,
                "max_score": t.max,
                "status": if t.passed { "passed" } else { "failed" },
                "visibility": if t.visible { "visible" } else { "after_published" },
                "output": t.text,
            })
        })
        .collect();
    let mut output = row.student_summary();
    if row.outcome == Outcome::CompileError {
        output.push_str(&format!("\n\nThe compiler's log:\n{}", capped(&row.compile_log)));
    }
    let score = row.score.as_ref().map_or(0.0, |s| s.score);
    let mut out = json!({
        "score": score,
        "output": output,
        "tests": tests,
        "extra_data": { "exercise": row.exercise, "outcome": row.outcome.as_str(), "status": "graded" },
    });
    if let Some(share) = row.share_of_copy {
        out["leaderboard"] = json!([{ "name": "share of a copy's speed", "value": share, "order": "desc" }]);
    }
    out
}

/// PrairieLearn's `results.json` for one submission: the score as a share
/// of the exercise's points, after the late policy; a compile error, and a
/// check the grader failed, `"gradable": false` so the student loses no
/// attempt. PrairieLearn shows a student everything in the file, so the
/// hidden battery is one test, and nothing of the grading machine is said.
pub fn prairielearn(row: &Row) -> Value {
    if row.outcome.needs_regrade() {
        return json!({ "gradable": false, "format_errors": [NOT_GRADED], "message": NOT_GRADED });
    }
    let message = row.student_summary();
    if row.outcome == Outcome::CompileError {
        return json!({
            "gradable": false,
            "format_errors": [format!("the file does not compile: {}", row.compile_error)],
            "message": message,
            "output": capped(&row.compile_log),
        });
    }
    let tests: Vec<Value> = row
        .tests()
        .into_iter()
        .map(|t| json!({ "name": t.name, "points": t.score, "max_points": t.max, "message": t.text }))
        .collect();
    let (score, max) = row.score.as_ref().map_or((0.0, 0.0), |s| (s.score, s.max));
    json!({
        "gradable": true,
        "score": if max > 0.0 { (score / max).clamp(0.0, 1.0) } else { 0.0 },
        "message": message,
        "tests": tests,
    })
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.0}%", 100.0 * part as f64 / whole as f64)
}

/// `summary.md`: per exercise, how many submissions got each outcome, the
/// pass rate and the mean score of those graded; then per exercise, how
/// many of the submissions that ran each shape passed it.
pub fn summary(plan: &Plan, rows: &[Row]) -> String {
    let mut exercises: Vec<&str> = rows.iter().map(|r| r.exercise.as_str()).collect();
    exercises.sort();
    exercises.dedup();
    let mut md = summary_opening(plan, rows, exercises.len());
    md.push_str(&outcome_table(rows, &exercises));
    for ex in &exercises {
        md.push_str(&shape_table(ex, shape_tally(rows, ex)));
    }
    md
}

/// The summary's title and its paragraphs on the run: what was graded, with
/// which battery and points, and how many need a regrade or are identical.
fn summary_opening(plan: &Plan, rows: &[Row], exercises: usize) -> String {
    let o = &plan.options;
    let battery = match (o.seeded, o.large) {
        (false, false) => "the public battery".to_string(),
        (false, true) => "the public battery with --large".to_string(),
        (true, large) => format!("the public and a seeded hidden battery{}", if large { ", with --large" } else { "" }),
    };
    let mut md = format!(
        "# Grading summary\n\n{} submissions, {} exercise{}, checked with {battery}; points from {}.\n\n",
        rows.len(),
        exercises,
        if exercises == 1 { "" } else { "s" },
        if plan.points.source.is_empty() { "the default" } else { &plan.points.source },
    );
    let regrade = rows.iter().filter(|r| r.outcome.needs_regrade()).count();
    if regrade > 0 {
        md.push_str(&format!(
            "{regrade} need{} a regrade: the grader failed them, and they have no score.\n\n",
            if regrade == 1 { "s" } else { "" }
        ));
    }
    let identical = rows.iter().filter(|r| !r.identical_to.is_empty()).count();
    if identical > 0 {
        md.push_str(&format!("{identical} are identical to another submission of the same exercise once comments and white space are removed (column identical_to).\n\n"));
    }
    md
}

/// The table of outcomes per exercise, with pass rate and mean score; a
/// column for each outcome some row has.
fn outcome_table(rows: &[Row], exercises: &[&str]) -> String {
    let present: Vec<Outcome> = Outcome::ALL.into_iter().filter(|o| rows.iter().any(|r| r.outcome == *o)).collect();
    let mut md = String::from("| Exercise | Submissions |");
    for o in &present {
        md.push_str(&format!(" {} |", o.as_str()));
    }
    md.push_str(" Pass rate | Mean score |\n| --- | ---: |");
    md.push_str(&" ---: |".repeat(present.len()));
    md.push_str(" ---: | ---: |\n");
    for ex in exercises {
        let of: Vec<&Row> = rows.iter().filter(|r| r.exercise == *ex).collect();
        md.push_str(&format!("| {ex} | {} |", of.len()));
        for o in &present {
            md.push_str(&format!(" {} |", of.iter().filter(|r| r.outcome == *o).count()));
        }
        let passed = of.iter().filter(|r| r.outcome == Outcome::Pass).count();
        let scores: Vec<f64> = of.iter().filter_map(|r| r.score.as_ref().map(|s| s.score)).collect();
        let mean = if scores.is_empty() {
            "-".to_string()
        } else {
            format!(
                "{} of {}",
                points::round(scores.iter().sum::<f64>() / scores.len() as f64),
                points::round(of[0].worth.total())
            )
        };
        md.push_str(&format!(" {} | {mean} |\n", percent(passed, of.len())));
    }
    md
}

/// One shape of an exercise's battery, and how many submissions passed it
/// of those that ran it.
type ShapeTally = ((Battery, String), (usize, usize));

/// Every shape some submission of `ex` ran (not skipped), in the order
/// first met, with how many passed it of how many ran it.
fn shape_tally(rows: &[Row], ex: &str) -> Vec<ShapeTally> {
    let mut shapes: Vec<ShapeTally> = Vec::new();
    for r in rows.iter().filter(|r| r.exercise == ex) {
        for s in r.shapes.iter().filter(|s| !s.not_run() && !s.skipped()) {
            let k = (s.battery, s.label.clone());
            let at = match shapes.iter().position(|(key, _)| *key == k) {
                Some(at) => at,
                None => {
                    shapes.push((k, (0, 0)));
                    shapes.len() - 1
                }
            };
            shapes[at].1 .0 += s.passed() as usize;
            shapes[at].1 .1 += 1;
        }
    }
    shapes
}

/// `ex`'s section of the summary: its shapes, public battery first.
fn shape_table(ex: &str, mut shapes: Vec<ShapeTally>) -> String {
    let mut md = format!("\n## {ex}, shape by shape\n\n");
    if shapes.is_empty() {
        md.push_str("No submission ran a shape.\n");
        return md;
    }
    shapes.sort_by_key(|((b, _), _)| *b);
    md.push_str("| Shape | Battery | Passed | Ran | Pass rate |\n| --- | --- | ---: | ---: | ---: |\n");
    for ((b, label), (passed, ran)) in &shapes {
        md.push_str(&format!("| {label} | {} | {passed} | {ran} | {} |\n", b.name(), percent(*passed, *ran)));
    }
    md
}

/// Writes the gradebook, the summary and every submission's Gradescope and
/// PrairieLearn files.
pub fn write_all(plan: &Plan, results: &Results, rows: &[Row]) -> anyhow::Result<()> {
    write_atomic(&results.dir.join("grades.csv"), &csv(rows))?;
    write_atomic(&results.dir.join("summary.md"), &summary(plan, rows))?;
    if !plan.roster.is_empty() {
        write_atomic(&results.dir.join("canvas.csv"), &canvas(plan, rows))?;
    }
    for r in rows.iter().filter(|r| r.outcome != Outcome::Missing) {
        let gs = serde_json::to_string_pretty(&gradescope(r))?;
        write_atomic(&results.dir.join("gradescope").join(&r.submission).join("results.json"), &format!("{gs}\n"))?;
        let pl = serde_json::to_string_pretty(&prairielearn(r))?;
        write_atomic(&results.dir.join("prairielearn").join(&r.submission).join("results.json"), &format!("{pl}\n"))?;
    }
    Ok(())
}

/// The columns a Canvas gradebook import reads before the assignments'.
pub const CANVAS_COLUMNS: [&str; 5] = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"];

/// `canvas.csv`, for a Canvas gradebook's import: one line per student of
/// the roster, named and matched by the roster's id (as the SIS user id)
/// and email (as the SIS login), then a line of points possible, and the
/// exercise's score after the late policy (empty where the submission
/// needs a regrade, so the import leaves that grade alone).
pub fn canvas(plan: &Plan, rows: &[Row]) -> String {
    let exercise = rows.first().map(|r| r.exercise.clone()).unwrap_or_default();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = CANVAS_COLUMNS.iter().map(|c| c.to_string()).collect();
    header.push(exercise.clone());
    w.write_record(&header).expect("writing to memory");
    let max = rows.first().map_or(0.0, |r| r.worth.total());
    w.write_record(["Points Possible", "", "", "", "", &format!("{}", points::round(max))]).expect("writing to memory");
    for s in &plan.roster {
        let score = rows
            .iter()
            .find(|r| r.submission == s.id)
            .and_then(|r| r.score.as_ref())
            .map_or(String::new(), |sc| format!("{}", points::round(sc.score)));
        w.write_record([s.name.as_str(), "", s.id.as_str(), s.email.as_str(), "", score.as_str()])
            .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("the fields are text")
}

/// The rows whose verdict is not the one the manifest expects, each with
/// what was expected.
pub fn unexpected<'a>(plan: &Plan, rows: &'a [Row]) -> Vec<(&'a Row, String)> {
    plan.jobs
        .iter()
        .zip(rows)
        .filter_map(|(job, row)| {
            let e = job.expected(&plan.options)?;
            (!row.meets(e)).then(|| (row, e.to_string()))
        })
        .collect()
}
