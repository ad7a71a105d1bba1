//! The results folder: the plan, one stored result per checked submission
//! (named by its key, so a rerun skips it), and what is written from them.
//!
//! ```text
//! RESULTS/plan.json                          what the run was asked
//! RESULTS/records/KEY.json                   one stored result per check
//! RESULTS/grades.csv                         the gradebook
//! RESULTS/summary.md                         pass rates per exercise and shape
//! RESULTS/gradescope/SUBMISSION/results.json
//! RESULTS/prairielearn/SUBMISSION/results.json
//! RESULTS/slurm/                             job scripts, rounds and logs (--slurm)
//! ```

use crate::plan::Plan;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How a check's process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// It printed a valid record (its verdict is in the record).
    Record,
    /// It ran past the wall-clock limit and was killed, with its children.
    TimedOut,
    /// It died of a signal, or printed no valid record.
    Crashed,
    /// It could not be run, or refused its arguments (exit code 2).
    NotRun,
}

/// One check's result, as stored in `records/KEY.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    pub key: String,
    pub submission: String,
    pub exercise: String,
    pub ended: Ended,
    /// What the grader saw, in one line, when there is no record to say it.
    pub detail: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// The device the check was given: a `CUDA_VISIBLE_DEVICES` value, with
    /// the node's name in front on a Slurm task; empty when none was set.
    pub device: String,
    /// Wall-clock seconds the check took (never in the gradebook).
    pub seconds: f64,
    /// The checker's record, exactly as printed.
    pub record: Option<serde_json::Value>,
    /// The last few kilobytes of the checker's standard error.
    pub stderr: String,
}

/// The results folder.
#[derive(Clone, Debug)]
pub struct Results {
    pub dir: PathBuf,
}

impl Results {
    pub fn new(dir: PathBuf) -> Self {
        Results { dir }
    }

    pub fn plan_path(&self) -> PathBuf {
        self.dir.join("plan.json")
    }

    pub fn record_path(&self, key: &str) -> PathBuf {
        self.dir.join("records").join(format!("{key}.json"))
    }

    pub fn slurm_dir(&self) -> PathBuf {
        self.dir.join("slurm")
    }

    pub fn write_plan(&self, plan: &Plan) -> anyhow::Result<()> {
        write_atomic(&self.plan_path(), &serde_json::to_string_pretty(plan)?)
    }

    pub fn read_plan(&self) -> Result<Plan, String> {
        let path = self.plan_path();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{} holds no grading run ({}: {e})", self.dir.display(), path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{} is not a grading plan: {e}", path.display()))
    }

    /// The stored result of `key`, if there is a readable one.
    pub fn stored(&self, key: &str) -> Option<Stored> {
        let text = std::fs::read_to_string(self.record_path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn store(&self, stored: &Stored) -> anyhow::Result<()> {
        write_atomic(&self.record_path(&stored.key), &format!("{}\n", serde_json::to_string_pretty(stored)?))
    }
}

/// Writes `text` to `path` through a temporary file in the same folder and
/// a rename, so a stopped run never leaves half a file behind.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    let dir = path.parent().context("a file in a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = path.file_name().context("a file name")?.to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}
