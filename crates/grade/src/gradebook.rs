//! From stored results to what an instructor reads: one row per
//! submission, the gradebook `grades.csv`, each submission's Gradescope and
//! PrairieLearn `results.json`, and the summary page. The same code serves
//! a local run and `--collect` after a Slurm job.

use crate::plan::{Job, Plan};
use crate::record::{Battery, CheckRecord, ShapeRecord};
use crate::store::{write_atomic, Ended, Results, Stored};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The gradebook's columns, in order.
pub const COLUMNS: [&str; 13] = [
    "submission",
    "exercise",
    "outcome",
    "public_passed",
    "public_total",
    "hidden_passed",
    "hidden_total",
    "share_of_copy",
    "compile_error",
    "failures",
    "first_failing_shape",
    "device",
    "note",
];

/// What became of one submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Every shape passed.
    Pass,
    /// Some shape failed, or the file has no kernel of the exercise's name.
    Fail,
    CompileError,
    /// The check ran past its limit (the grader's `--timeout`, or Slurm's
    /// time limit) and was killed.
    TimedOut,
    /// The check's process died of a signal or printed no valid record.
    Crashed,
    /// The checker could not check (no GPU, no NVRTC, or it refused).
    CouldNotCheck,
    /// The scheduler ended the task otherwise (cancelled, node failure, ...).
    Killed,
    /// No result, and nothing says why.
    NotChecked,
}

impl Outcome {
    pub const ALL: [Outcome; 8] = [
        Outcome::Pass,
        Outcome::Fail,
        Outcome::CompileError,
        Outcome::TimedOut,
        Outcome::Crashed,
        Outcome::CouldNotCheck,
        Outcome::Killed,
        Outcome::NotChecked,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::CompileError => "compile error",
            Outcome::TimedOut => "timed out",
            Outcome::Crashed => "crashed",
            Outcome::CouldNotCheck => "could not check",
            Outcome::Killed => "killed",
            Outcome::NotChecked => "not checked",
        }
    }

    /// Whether the submission was checked: its verdict is about the
    /// submission, not about the machine or the scheduler.
    pub fn checked(self) -> bool {
        !matches!(self, Outcome::CouldNotCheck | Outcome::Killed | Outcome::NotChecked)
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
    pub public: (usize, usize),
    pub hidden: (usize, usize),
    pub share_of_copy: Option<f64>,
    /// The compiler's first line, for a compile error.
    pub compile_error: String,
    /// The kinds of failure seen on any shape, in order of first sight.
    pub failures: Vec<String>,
    pub first_failing_shape: String,
    pub device: String,
    pub note: String,
    pub shapes: Vec<ShapeRecord>,
    pub compile_log: String,
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
            share_of_copy: None,
            compile_error: String::new(),
            failures: Vec::new(),
            first_failing_shape: String::new(),
            device: String::new(),
            note,
            shapes: Vec::new(),
            compile_log: String::new(),
        }
    }

    /// The row of `job` from its stored result, or from what the scheduler
    /// says of it when there is none.
    pub fn of(job: &Job, stored: Option<&Stored>, task: Option<&TaskState>) -> Row {
        let Some(stored) = stored else {
            return match task {
                Some(t) => {
                    let (outcome, what) = match t.state.as_deref() {
                        Some("TIMEOUT") => (Outcome::TimedOut, "Slurm stopped the task at its time limit (TIMEOUT)".to_string()),
                        Some(s @ ("PENDING" | "RUNNING" | "REQUEUED" | "SUSPENDED" | "CONFIGURING" | "COMPLETING")) => {
                            (Outcome::NotChecked, format!("the task had not finished ({s})"))
                        }
                        Some(s) if s.starts_with("CANCELLED") => (Outcome::Killed, format!("the task was cancelled ({s})")),
                        Some(s) => (Outcome::Killed, format!("the task ended without a result ({s})")),
                        None => (Outcome::NotChecked, "the task's state is unknown".to_string()),
                    };
                    Row::empty(job, outcome, format!("{what}; {}", t.source))
                }
                None => Row::empty(job, Outcome::NotChecked, "no result stored: the run stopped before this check".into()),
            };
        };
        let mut row = Row::empty(job, Outcome::Crashed, stored.detail.clone().unwrap_or_default());
        row.device = stored.device.clone();
        match stored.ended {
            Ended::TimedOut => row.outcome = Outcome::TimedOut,
            Ended::Crashed => row.outcome = Outcome::Crashed,
            Ended::NotRun => row.outcome = Outcome::CouldNotCheck,
            Ended::Record => {
                let Some(record) = stored.record.clone().and_then(|v| serde_json::from_value::<CheckRecord>(v).ok()) else {
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
        self.outcome = match record.outcome.as_str() {
            "pass" => Outcome::Pass,
            "could not check" => Outcome::CouldNotCheck,
            _ if record.shapes.is_empty() && reason.contains("does not compile") => {
                self.compile_error = match one_line(&self.compile_log) {
                    l if l.is_empty() => one_line(&reason),
                    l => l,
                };
                Outcome::CompileError
            }
            _ => Outcome::Fail,
        };
        for s in &record.shapes {
            let tally = if s.battery == Battery::Hidden { &mut self.hidden } else { &mut self.public };
            tally.1 += 1;
            tally.0 += s.passed() as usize;
            if !s.passed() && self.first_failing_shape.is_empty() && s.verdict != "not_run" {
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

    /// The gradebook line, in [`COLUMNS`] order.
    pub fn fields(&self) -> Vec<String> {
        vec![
            self.submission.clone(),
            self.exercise.clone(),
            self.outcome.as_str().into(),
            self.public.0.to_string(),
            self.public.1.to_string(),
            self.hidden.0.to_string(),
            self.hidden.1.to_string(),
            self.share_of_copy.map_or(String::new(), |s| format!("{s:.3}")),
            self.compile_error.clone(),
            self.failures.join("; "),
            self.first_failing_shape.clone(),
            self.device.clone(),
            self.note.clone(),
        ]
    }

    /// Whether this row shows the verdict a manifest expects (one of
    /// [`crate::plan::EXPECTATIONS`]): `fail` is any failed check; a kind
    /// such as `wrong` is a failed check showing that kind on some shape;
    /// `no kernel` a failed check that ran no shape and is not a compile
    /// error; `crashed` a check whose process crashed or whose kernel did.
    pub fn meets(&self, expect: &str) -> bool {
        let failed_with = |kind: &str| self.outcome == Outcome::Fail && self.failures.iter().any(|f| f == kind);
        match expect {
            "pass" => self.outcome == Outcome::Pass,
            "fail" => self.outcome == Outcome::Fail,
            "compile error" => self.outcome == Outcome::CompileError,
            "no kernel" => self.outcome == Outcome::Fail && self.shapes.is_empty(),
            "crashed" => self.outcome == Outcome::Crashed || failed_with("crashed"),
            "timed out" => self.outcome == Outcome::TimedOut,
            "could not check" => self.outcome == Outcome::CouldNotCheck,
            kind => failed_with(kind),
        }
    }

    /// The verdict in a few words: the outcome, and the kinds of failure.
    pub fn verdict(&self) -> String {
        match self.failures.is_empty() {
            true => self.outcome.as_str().to_string(),
            false => format!("{} ({})", self.outcome.as_str(), self.failures.join(", ")),
        }
    }

    fn summary_line(&self) -> String {
        let mut line = format!("{} {}: {}", self.exercise, self.submission, self.verdict());
        let (pp, pt) = self.public;
        if pt > 0 {
            line.push_str(&format!("; {pp} of {pt} public shapes pass"));
        }
        let (hp, ht) = self.hidden;
        if ht > 0 {
            line.push_str(&format!("; {hp} of {ht} hidden shapes pass"));
        }
        if !self.note.is_empty() {
            line.push_str(&format!("; {}", self.note));
        }
        line
    }
}

/// The rows of a plan, in its order.
pub fn rows(plan: &Plan, results: &Results, tasks: &BTreeMap<String, TaskState>) -> Vec<Row> {
    plan.jobs.iter().map(|j| Row::of(j, results.stored(&j.key).as_ref(), tasks.get(&j.key))).collect()
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

/// Gradescope's `results.json` for one submission: a test per shape worth
/// one point (public shapes `visible`, hidden ones `after_published`), the
/// score the points passed, and the share of the copy's speed on the
/// leaderboard when the kernel was timed.
pub fn gradescope(row: &Row) -> Value {
    let mut tests: Vec<Value> = row
        .shapes
        .iter()
        .map(|s| {
            let passed = s.passed();
            json!({
                "name": format!("{} {} shape: {}", row.exercise, s.battery.name(), s.label),
                "score": if passed { 1.0 } else { 0.0 },
                "max_score": 1.0,
                "status": if passed { "passed" } else { "failed" },
                "visibility": if s.battery == Battery::Hidden { "after_published" } else { "visible" },
                "output": s.describe(),
            })
        })
        .collect();
    if tests.is_empty() {
        tests.push(json!({
            "name": format!("{}: the check", row.exercise),
            "score": 0.0,
            "max_score": 0.0,
            "status": "failed",
            "visibility": "visible",
            "output": row.note,
        }));
    }
    let mut output = row.summary_line();
    if row.outcome == Outcome::CompileError {
        output.push_str(&format!("\n\nThe compiler's log:\n{}", capped(&row.compile_log)));
    }
    let passed = (row.public.0 + row.hidden.0) as f64;
    let mut out = json!({
        "score": passed,
        "output": output,
        "tests": tests,
        "extra_data": { "exercise": row.exercise, "outcome": row.outcome.as_str() },
    });
    if let Some(share) = row.share_of_copy {
        out["leaderboard"] = json!([{ "name": "share of a copy's speed", "value": share, "order": "desc" }]);
    }
    out
}

/// PrairieLearn's `results.json` for one submission: the score the share
/// of shapes passed; a compile error, or a check that could not be made,
/// `"gradable": false` so the student loses no attempt.
pub fn prairielearn(row: &Row) -> Value {
    let message = row.summary_line();
    match row.outcome {
        Outcome::CompileError => json!({
            "gradable": false,
            "format_errors": [format!("the file does not compile: {}", row.compile_error)],
            "message": message,
            "output": capped(&row.compile_log),
        }),
        o if !o.checked() => json!({
            "gradable": false,
            "format_errors": [format!("{}: {}", o.as_str(), row.note)],
            "message": message,
        }),
        _ => {
            let mut tests: Vec<Value> = row
                .shapes
                .iter()
                .map(|s| {
                    json!({
                        "name": format!("{} shape: {}", s.battery.name(), s.label),
                        "description": format!("{}x{}", s.rows, s.cols),
                        "points": if s.passed() { 1 } else { 0 },
                        "max_points": 1,
                        "message": s.describe(),
                    })
                })
                .collect();
            if tests.is_empty() {
                tests.push(json!({ "name": "the check", "points": 0, "max_points": 1, "message": row.note }));
            }
            let total: i64 = tests.iter().map(|t| t["max_points"].as_i64().unwrap_or(0)).sum();
            let got: i64 = tests.iter().map(|t| t["points"].as_i64().unwrap_or(0)).sum();
            json!({
                "gradable": true,
                "score": if total > 0 { got as f64 / total as f64 } else { 0.0 },
                "message": message,
                "tests": tests,
            })
        }
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.0}%", 100.0 * part as f64 / whole as f64)
}

/// `summary.md`: per exercise, how many submissions got each outcome and
/// the pass rate; then per exercise, how many of the submissions that ran
/// each shape passed it.
pub fn summary(plan: &Plan, rows: &[Row]) -> String {
    let o = &plan.options;
    let battery = match (o.seed, o.large) {
        (None, false) => "the public battery".to_string(),
        (None, true) => "the public battery with --large".to_string(),
        (Some(s), large) => format!("seed {s}{}", if large { ", with --large" } else { "" }),
    };
    let mut exercises: Vec<&str> = rows.iter().map(|r| r.exercise.as_str()).collect();
    exercises.sort();
    exercises.dedup();
    let mut md = format!(
        "# Grading summary\n\n{} submissions, {} exercise{}, checked with {battery}.\n\n",
        rows.len(),
        exercises.len(),
        if exercises.len() == 1 { "" } else { "s" }
    );
    let present: Vec<Outcome> = Outcome::ALL.into_iter().filter(|o| rows.iter().any(|r| r.outcome == *o)).collect();
    md.push_str("| Exercise | Submissions |");
    for o in &present {
        md.push_str(&format!(" {} |", o.as_str()));
    }
    md.push_str(" Pass rate |\n| --- | ---: |");
    md.push_str(&" ---: |".repeat(present.len()));
    md.push_str(" ---: |\n");
    for ex in &exercises {
        let of: Vec<&Row> = rows.iter().filter(|r| r.exercise == *ex).collect();
        md.push_str(&format!("| {ex} | {} |", of.len()));
        for o in &present {
            md.push_str(&format!(" {} |", of.iter().filter(|r| r.outcome == *o).count()));
        }
        let passed = of.iter().filter(|r| r.outcome == Outcome::Pass).count();
        md.push_str(&format!(" {} |\n", percent(passed, of.len())));
    }
    for ex in &exercises {
        let mut shapes: Vec<((Battery, String), (usize, usize))> = Vec::new();
        for r in rows.iter().filter(|r| r.exercise == *ex) {
            for s in r.shapes.iter().filter(|s| s.verdict != "not_run") {
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
        md.push_str(&format!("\n## {ex}, shape by shape\n\n"));
        if shapes.is_empty() {
            md.push_str("No submission ran a shape.\n");
            continue;
        }
        shapes.sort_by_key(|((b, _), _)| *b);
        md.push_str("| Shape | Battery | Passed | Ran | Pass rate |\n| --- | --- | ---: | ---: | ---: |\n");
        for ((b, label), (passed, ran)) in &shapes {
            md.push_str(&format!("| {label} | {} | {passed} | {ran} | {} |\n", b.name(), percent(*passed, *ran)));
        }
    }
    md
}

/// Writes the gradebook, the summary and every submission's Gradescope and
/// PrairieLearn files.
pub fn write_all(plan: &Plan, results: &Results, rows: &[Row]) -> anyhow::Result<()> {
    write_atomic(&results.dir.join("grades.csv"), &csv(rows))?;
    write_atomic(&results.dir.join("summary.md"), &summary(plan, rows))?;
    for r in rows {
        let gs = serde_json::to_string_pretty(&gradescope(r))?;
        write_atomic(&results.dir.join("gradescope").join(&r.submission).join("results.json"), &format!("{gs}\n"))?;
        let pl = serde_json::to_string_pretty(&prairielearn(r))?;
        write_atomic(&results.dir.join("prairielearn").join(&r.submission).join("results.json"), &format!("{pl}\n"))?;
    }
    Ok(())
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
