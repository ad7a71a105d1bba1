//! The results folder: the plan, one stored result per checked submission
//! (named by its key, so a rerun skips it), and what is written from them.
//!
//! ```text
//! RESULTS/plan.json                          what the run was asked (no seed)
//! RESULTS/seed                               the hidden battery's seed, mode 600
//! RESULTS/records/KEY.json                   one stored result per check
//! RESULTS/grades.csv                         the gradebook
//! RESULTS/canvas.csv                         scores for a Canvas import (--roster)
//! RESULTS/summary.md                         pass rates per exercise and shape
//! RESULTS/gradescope/SUBMISSION/results.json
//! RESULTS/prairielearn/SUBMISSION/results.json
//! RESULTS/slurm/                             job scripts, rounds and logs (--slurm)
//! ```

use crate::plan::Plan;
use anyhow::anyhow;
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

    /// Where the seed is kept: a file only its owner may read, which the
    /// checks read it from (`check --seed-file`), so that it is on no
    /// command line and not in `plan.json`.
    pub fn seed_path(&self) -> PathBuf {
        self.dir.join("seed")
    }

    /// Creates the results folder, readable by its owner alone: it holds
    /// the seed, and every student's results.
    pub fn create(&self) -> anyhow::Result<()> {
        use anyhow::Context;
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if !self.dir.is_dir() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.dir)
                .with_context(|| format!("cannot create {}", self.dir.display()))?;
        }
        std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("cannot make {} private", self.dir.display()))
    }

    /// Writes `plan.json`, and the seed, when there is one, to [`Self::seed_path`]
    /// (mode 600).
    pub fn write_plan(&self, plan: &Plan) -> anyhow::Result<()> {
        use anyhow::Context;
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        self.create()?;
        let seed = self.seed_path();
        match plan.options.seed {
            Some(s) => {
                let tmp = self.dir.join(format!(".seed.{}.tmp", std::process::id()));
                let _ = std::fs::remove_file(&tmp);
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&tmp)
                    .with_context(|| format!("cannot write {}", tmp.display()))?;
                writeln!(f, "{s}").with_context(|| format!("cannot write {}", tmp.display()))?;
                std::fs::rename(&tmp, &seed).with_context(|| format!("cannot write {}", seed.display()))?;
            }
            None => {
                let _ = std::fs::remove_file(&seed);
            }
        }
        write_atomic(&self.plan_path(), &serde_json::to_string_pretty(plan)?)
    }

    /// The plan, with its seed read back from [`Self::seed_path`].
    pub fn read_plan(&self) -> anyhow::Result<Plan> {
        let path = self.plan_path();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow!("{} holds no grading run ({}: {e})", self.dir.display(), path.display()))?;
        let mut plan: Plan =
            serde_json::from_str(&text).map_err(|e| anyhow!("{} is not a grading plan: {e}", path.display()))?;
        if plan.options.seeded {
            let seed = ktrav::lab::seed_from_file(&self.seed_path())
                .map_err(|e| anyhow!("{} was graded with a seed, but {e:#}", self.dir.display()))?;
            plan.options.seed = Some(seed);
        }
        Ok(plan)
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
