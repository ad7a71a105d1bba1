//! The points file (`--points grading.toml`): what each exercise is worth,
//! split between the public and the hidden battery, scored shape by shape
//! or all or nothing, and a late policy. Read and checked before any work;
//! the result is kept in the plan, so `--collect` scores as the run did.
//!
//! ```toml
//! [default]                 # every exercise the file does not name
//! public = 6
//! hidden = 4                # needs --seed
//! scoring = "per-shape"     # or "all-or-nothing"
//!
//! [exercise."K.2:transpose"]
//! public = 10
//! hidden = 10
//! scoring = "all-or-nothing"
//!
//! [late]
//! deadline = "2026-12-10T23:59:00Z"   # UTC
//! per_day = 0.1             # share of the score lost per day late, or part of one
//! max_days = 3              # later than this scores 0 (leave out: no limit)
//! ```

use crate::exercise::{self, ExerciseRef};
use anyhow::anyhow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// How a battery's points are earned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// Each shape that passes earns its share.
    #[default]
    PerShape,
    /// The battery's points only when every one of its shapes passes.
    AllOrNothing,
}

impl Scoring {
    pub fn as_str(self) -> &'static str {
        match self {
            Scoring::PerShape => "per-shape",
            Scoring::AllOrNothing => "all-or-nothing",
        }
    }
}

/// What one exercise is worth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Worth {
    pub public: f64,
    #[serde(default)]
    pub hidden: f64,
    #[serde(default)]
    pub scoring: Scoring,
}

impl Worth {
    pub fn total(&self) -> f64 {
        self.public + self.hidden
    }
}

/// The late policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Late {
    /// Seconds since 1970 (UTC).
    pub deadline: i64,
    /// The share of the score lost per day late, or part of one.
    pub per_day: f64,
    /// Past this many days late a submission scores 0.
    pub max_days: Option<u32>,
}

impl Late {
    /// Whole days (a part counts as one) that `modified` is past the deadline.
    pub fn days_late(&self, modified: Option<i64>) -> u32 {
        match modified {
            Some(t) if t > self.deadline => ((t - self.deadline) as u64).div_ceil(86_400).min(u32::MAX as u64) as u32,
            _ => 0,
        }
    }

    /// What is left of a score `days` late.
    pub fn factor(&self, days: u32) -> f64 {
        if days == 0 {
            return 1.0;
        }
        if self.max_days.is_some_and(|m| days > m) {
            return 0.0;
        }
        (1.0 - self.per_day * days as f64).max(0.0)
    }
}

/// Every exercise's worth, and the late policy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Points {
    /// Where they came from: the file, or the default.
    pub source: String,
    /// By exercise (`K.2:transpose`).
    pub exercises: BTreeMap<String, Worth>,
    pub late: Option<Late>,
}

/// What every exercise is worth without a points file: one point for the
/// public battery and, with a seed, one for the hidden, shape by shape.
pub fn default_worth(seeded: bool) -> Worth {
    Worth { public: 1.0, hidden: if seeded { 1.0 } else { 0.0 }, scoring: Scoring::PerShape }
}

impl Points {
    /// The default points of `exercises`.
    pub fn default_for(exercises: &[&ExerciseRef], seeded: bool) -> Points {
        Points {
            source: "the default: one point per battery, shape by shape".into(),
            exercises: exercises.iter().map(|e| (e.to_string(), default_worth(seeded))).collect(),
            late: None,
        }
    }

    /// What `exercise` is worth (nothing, where the plan does not know it).
    pub fn of(&self, exercise: &str) -> Worth {
        self.exercises.get(exercise).copied().unwrap_or(Worth { public: 0.0, hidden: 0.0, scoring: Scoring::PerShape })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    default: Option<Worth>,
    #[serde(default)]
    exercise: BTreeMap<String, Worth>,
    late: Option<LateFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LateFile {
    deadline: String,
    per_day: f64,
    max_days: Option<u32>,
}

/// Reads a points file for `graded` (the plan's exercises) out of
/// `catalogue`. `Err` is one line: a field the format does not have, a
/// negative or non-finite number, an unknown exercise, one graded that the
/// file gives no points (and no `[default]`), hidden points without a
/// seed, a deadline that is no UTC time.
pub fn read(path: &Path, catalogue: &[ExerciseRef], graded: &[&ExerciseRef], seeded: bool) -> anyhow::Result<Points> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow!("cannot read the points file {}: {e}", path.display()))?;
    let at = |what: String| anyhow!("{}: {what}", path.display());
    let file: File = toml::from_str(&text).map_err(|e| at(e.message().to_string()))?;
    let check = |name: &str, w: &Worth| -> anyhow::Result<()> {
        for (part, v) in [("public", w.public), ("hidden", w.hidden)] {
            if !v.is_finite() || v < 0.0 {
                return Err(at(format!("{name}: {part} = {v} is not a number of points (0 or more)")));
            }
        }
        if w.total() <= 0.0 {
            return Err(at(format!("{name} is worth no points")));
        }
        if w.hidden > 0.0 && !seeded {
            return Err(at(format!("{name} gives {} hidden points, but no --seed draws a hidden battery", w.hidden)));
        }
        Ok(())
    };
    if let Some(d) = &file.default {
        check("[default]", d)?;
    }
    let mut named = BTreeMap::new();
    for (name, w) in &file.exercise {
        let e = exercise::find(catalogue, name).map_err(|e| at(format!("[exercise.\"{name}\"]: {e}")))?;
        check(&format!("[exercise.\"{name}\"]"), w)?;
        if named.insert(e.to_string(), *w).is_some() {
            return Err(at(format!("{e} is given points twice")));
        }
    }
    let mut exercises = BTreeMap::new();
    for e in graded {
        let name = e.to_string();
        let w = named.get(&name).copied().or(file.default).ok_or_else(|| {
            at(format!("gives no points for {name}, which is graded (add [exercise.\"{name}\"] or a [default])"))
        })?;
        exercises.insert(name, w);
    }
    let late = match file.late {
        None => None,
        Some(l) => {
            let deadline = humantime::parse_rfc3339_weak(l.deadline.trim())
                .map_err(|e| {
                    at(format!("[late] deadline '{}' is not a UTC time such as 2026-12-10T23:59:00Z ({e})", l.deadline))
                })?
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|_| at(format!("[late] deadline '{}' is before 1970", l.deadline)))?
                .as_secs() as i64;
            if !(0.0..=1.0).contains(&l.per_day) {
                return Err(at(format!("[late] per_day = {} is not a share from 0 to 1", l.per_day)));
            }
            Some(Late { deadline, per_day: l.per_day, max_days: l.max_days })
        }
    };
    Ok(Points { source: path.display().to_string(), exercises, late })
}

/// What one submission earned.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Before the late policy.
    pub earned: f64,
    pub max: f64,
    pub days_late: u32,
    /// After the late policy.
    pub score: f64,
}

/// Points rounded to hundredths, so that a total is what its parts say.
pub fn round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The points of one battery: `passed` of `total` shapes passed (a skipped
/// shape is not passed).
pub fn battery(points: f64, scoring: Scoring, passed: usize, total: usize) -> f64 {
    match (scoring, total) {
        (_, 0) => 0.0,
        (Scoring::PerShape, t) => points * passed as f64 / t as f64,
        (Scoring::AllOrNothing, t) if passed == t => points,
        (Scoring::AllOrNothing, _) => 0.0,
    }
}

/// The score of a checked submission.
pub fn score(
    w: &Worth,
    public: (usize, usize),
    hidden: (usize, usize),
    late: Option<&Late>,
    modified: Option<i64>,
) -> Score {
    let earned =
        round(battery(w.public, w.scoring, public.0, public.1) + battery(w.hidden, w.scoring, hidden.0, hidden.1));
    let days_late = late.map_or(0, |l| l.days_late(modified));
    let factor = late.map_or(1.0, |l| l.factor(days_late));
    Score { earned, max: round(w.total()), days_late, score: round(earned * factor) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::sample;

    fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("grading.toml");
        std::fs::write(&p, text).unwrap();
        (d, p)
    }

    #[test]
    fn a_points_file_is_read_and_checked() {
        let c = sample();
        let graded: Vec<&ExerciseRef> = c.iter().collect();
        let (_d, p) = write("[default]\npublic = 2\n\n[exercise.\"k2_transpose:transpose\"]\npublic = 6\nhidden = 4\nscoring = \"all-or-nothing\"\n\n[late]\ndeadline = \"2026-12-10T23:59:00Z\"\nper_day = 0.25\nmax_days = 2\n");
        let points = read(&p, &c, &graded, true).unwrap();
        assert_eq!(points.of("K.2:transpose"), Worth { public: 6.0, hidden: 4.0, scoring: Scoring::AllOrNothing });
        assert_eq!(points.of("K.3:copy"), Worth { public: 2.0, hidden: 0.0, scoring: Scoring::PerShape });
        let late = points.late.clone().unwrap();
        assert_eq!(late.deadline, 1_796_947_140);
        assert_eq!(
            [
                late.days_late(Some(late.deadline)),
                late.days_late(Some(late.deadline + 1)),
                late.days_late(Some(late.deadline + 86_401))
            ],
            [0, 1, 2]
        );
        assert_eq!([late.factor(0), late.factor(1), late.factor(2), late.factor(3)], [1.0, 0.75, 0.5, 0.0]);
        let refused = |text: &str, seeded: bool, says: &str| {
            let (_d, p) = write(text);
            let e = read(&p, &c, &graded, seeded).unwrap_err().to_string();
            assert!(e.contains(says) && !e.contains('\n'), "{e}");
        };
        refused("[default]\npublic = 1\nhidden = 1\n", false, "no --seed draws a hidden battery");
        refused("[exercise.\"K.2:transpose\"]\npublic = 1\n", false, "gives no points for K.2:find-the-bug");
        refused("[exercise.\"K.9:x\"]\npublic = 1\n[default]\npublic = 1\n", false, "no chapter 'K.9'");
        refused("[default]\npublic = -1\n", false, "is not a number of points");
        refused("[default]\npublic = 0\n", false, "worth no points");
        refused("[default]\npublic = 1\nscoring = \"most\"\n", false, "unknown variant");
        refused("[default]\npublic = 1\npoints = 3\n", false, "unknown field");
        refused("[default]\npublic = 1\n[late]\ndeadline = \"friday\"\nper_day = 0.1\n", false, "is not a UTC time");
        refused(
            "[default]\npublic = 1\n[late]\ndeadline = \"2026-12-10T23:59:00Z\"\nper_day = 2\n",
            false,
            "not a share",
        );
        refused("[default]\npublic = 1\n[exercise.\"K.3:copy\"]\npublic = 1\n[exercise.\"k3_grid_mapping:copy\"]\npublic = 2\n", false, "given points twice");
    }

    #[test]
    fn scores_follow_the_scoring_and_a_skipped_shape_earns_nothing() {
        let per = Worth { public: 6.0, hidden: 4.0, scoring: Scoring::PerShape };
        assert_eq!(score(&per, (9, 10), (1, 2), None, None).earned, 7.4);
        let all = Worth { scoring: Scoring::AllOrNothing, ..per };
        assert_eq!(score(&all, (9, 10), (2, 2), None, None).earned, 4.0);
        assert_eq!(
            score(&all, (10, 10), (2, 2), None, None),
            Score { earned: 10.0, max: 10.0, days_late: 0, score: 10.0 }
        );
        let late = Late { deadline: 1000, per_day: 0.1, max_days: None };
        let s = score(&all, (10, 10), (2, 2), Some(&late), Some(1000 + 86_400 * 2));
        assert_eq!((s.days_late, s.score), (2, 8.0));
        assert_eq!(battery(3.0, Scoring::PerShape, 0, 0), 0.0, "no shape ran, nothing earned");
    }
}
