//! Grading through Slurm: a round is one array job over the submissions
//! that have no stored result yet, one task per batch of them, and a job
//! that runs `grade --collect` once every task has ended
//! (`--dependency=afterany`). A task runs the same checks as a local run
//! and stores its results in the same folder; what a task that stored
//! nothing became is asked of `sacct`, or of `scontrol` where there is no
//! accounting database.

use crate::gradebook::TaskState;
use crate::store::{write_atomic, Results};
use anyhow::anyhow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Array indices Slurm accepts by default (`MaxArraySize` is 1001).
pub const MAX_TASKS: usize = 1000;

/// The flags of `grade --slurm`, and what each task asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmOptions {
    pub partition: Option<String>,
    /// The collect job's partition; `None` for the cluster's default.
    pub collect_partition: Option<String>,
    /// `--gres`, or `None` for no `--gres` line.
    pub gres: Option<String>,
    /// How long each task may run, as sbatch's `--time` takes it.
    pub time: String,
    pub max_parallel: Option<u64>,
    pub batch: usize,
    /// Each task's `--mem`, in MiB, and `--cpus-per-task` (see [`resources`]).
    pub mem_mb: u64,
    pub cpus: u64,
}

/// The memory a task's checker needs beyond its buffers: the CUDA
/// context, NVRTC and the supervisor, in MiB.
pub const BASE_MEM_MB: u64 = 1024;

/// The most CPUs a task asks for.
pub const MAX_CPUS: u64 = 8;

/// A task's `--mem` (MiB) and `--cpus-per-task` for an exercise whose
/// largest shape needs `bytes` of buffers: the checker holds the inputs
/// and the guarded output on the host as well as on the device, and
/// compares them with what it expects, so 1.5 times the buffers plus
/// [`BASE_MEM_MB`]; two CPUs (the check and its worker), and one more per
/// GiB of buffers, which the inputs are generated on, up to [`MAX_CPUS`].
pub fn resources(bytes: u64) -> (u64, u64) {
    const MIB: u64 = 1 << 20;
    let mem = (bytes + bytes / 2).div_ceil(MIB) + BASE_MEM_MB;
    let cpus = (2 + bytes / (1 << 30)).min(MAX_CPUS);
    (mem, cpus)
}

/// One round: which results its tasks are to store, and the jobs that run it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    pub round: u32,
    /// Submissions per task.
    pub batch: usize,
    /// The keys of the jobs to check, task `n` taking `batch` from `n * batch`.
    pub keys: Vec<String>,
    pub job_id: Option<String>,
    pub collect_job_id: Option<String>,
}

impl Round {
    pub fn tasks(&self) -> usize {
        self.keys.len().div_ceil(self.batch)
    }

    /// The keys task `n` checks.
    pub fn of_task(&self, n: usize) -> &[String] {
        let start = (n * self.batch).min(self.keys.len());
        &self.keys[start..(start + self.batch).min(self.keys.len())]
    }
}

pub fn round_path(results: &Results, round: u32) -> PathBuf {
    results.slurm_dir().join(format!("round-{round}.json"))
}

/// Every round written so far, in order.
pub fn rounds(results: &Results) -> Vec<Round> {
    let mut out: Vec<Round> = (1..)
        .map(|r| round_path(results, r))
        .take_while(|p| p.is_file())
        .filter_map(|p| serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok())
        .collect();
    out.sort_by_key(|r| r.round);
    out
}

pub fn read_round(results: &Results, round: u32) -> anyhow::Result<Round> {
    let path = round_path(results, round);
    let text =
        std::fs::read_to_string(&path).map_err(|e| anyhow!("no round {round} in {} ({e})", results.dir.display()))?;
    serde_json::from_str(&text).map_err(|e| anyhow!("{} is not a round: {e}", path.display()))
}

pub fn write_round(results: &Results, round: &Round) -> anyhow::Result<()> {
    write_atomic(&round_path(results, round.round), &serde_json::to_string_pretty(round)?)
}

/// A path as one shell word.
pub fn quoted(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// The array job of a round: a readable script, meant to be adapted.
pub fn array_script(round: &Round, o: &SlurmOptions, results: &Path, exe: &Path) -> String {
    let tasks = round.tasks();
    let throttle = o.max_parallel.map_or(String::new(), |n| format!("%{n}"));
    let mut s = format!(
        "#!/bin/bash
# Grading round {r} of {res}: {n} submission{ns} in {tasks} array task{ts}, {b} per task.
# Written by `appendix_k grade --slurm`; kept here so staff can adapt it.
#
# Each task checks its submissions as a local `appendix_k grade` does, each
# in a process of its own, and stores each result in {res}/records/.
# The job in collect-{r}.sbatch runs once every task has ended
# (--dependency=afterany) and writes the gradebook; `appendix_k grade
# --collect {res}` does the same by hand. A second `appendix_k grade --slurm`
# with the same flags submits only what has no result yet.
#
# To adapt it: add the cluster's own lines below (for example
# #SBATCH --account=COURSE and #SBATCH --qos=QOS), load what the GPU node
# needs before the last line (the NVIDIA driver is there; NVRTC may come from
# a module, or from the pinned wheel on LD_LIBRARY_PATH), or run the last
# line inside a container. Keep --array as it is: each index is one batch.
#SBATCH --job-name=ktrav-grade
#SBATCH --array=0-{last}{throttle}
#SBATCH --time={time}
#SBATCH --ntasks=1
#SBATCH --mem={mem}M
#SBATCH --cpus-per-task={cpus}
#SBATCH --output={res}/slurm/logs/round-{r}-%A_%a.out
",
        r = round.round,
        res = results.display(),
        n = round.keys.len(),
        ns = if round.keys.len() == 1 { "" } else { "s" },
        ts = if tasks == 1 { "" } else { "s" },
        b = round.batch,
        last = tasks.saturating_sub(1),
        time = o.time,
        mem = o.mem_mb,
        cpus = o.cpus,
    );
    if let Some(g) = &o.gres {
        s.push_str(&format!("#SBATCH --gres={g}\n"));
    }
    if let Some(p) = &o.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    s.push_str(&format!(
        "
# module load cuda
# export LD_LIBRARY_PATH=/opt/nvrtc/nvidia/cu13/lib:$LD_LIBRARY_PATH
unset KTRAV_LAB_SEED
exec {} grade --task \"$SLURM_ARRAY_TASK_ID\" --round {} --results {}
",
        quoted(exe),
        round.round,
        quoted(results)
    ));
    s
}

/// The job that writes the gradebook once the array job has ended.
pub fn collect_script(round: &Round, o: &SlurmOptions, results: &Path, exe: &Path) -> String {
    let mut s = format!(
        "#!/bin/bash
# Writes the gradebook of {res} once round {r}'s array job has ended: submitted
# with --dependency=afterany on it by `appendix_k grade --slurm`. It needs no
# GPU: its partition is --collect-partition's, or the cluster's default.
#SBATCH --job-name=ktrav-collect
#SBATCH --time=10
#SBATCH --ntasks=1
#SBATCH --output={res}/slurm/logs/collect-{r}-%j.out
",
        res = results.display(),
        r = round.round
    );
    if let Some(p) = &o.collect_partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    s.push_str(&format!("\nexec {} grade --collect {}\n", quoted(exe), quoted(results)));
    s
}

/// Runs `sbatch --parsable ARGS SCRIPT` and returns the job id.
pub fn sbatch(script: &Path, extra: &[String]) -> anyhow::Result<String> {
    // sbatch exports its environment to the job: the seed variable stays here.
    let out = Command::new("sbatch")
        .env_remove(ktrav::lab::SEED_ENV)
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .map_err(|e| anyhow!("cannot run sbatch: {e} (is this a Slurm login node?)"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").trim().to_string();
    if !out.status.success() || id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("no job id printed").trim();
        return Err(anyhow!("sbatch refused {}: {line}", script.display()));
    }
    Ok(id)
}

/// The states of a job's array tasks from `sacct -P -n -X -j JOB -o JobID,State`.
pub fn parse_sacct(job: &str, text: &str) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some((id, state)) = line.trim().split_once('|') else { continue };
        let Some(tasks) = id.strip_prefix(&format!("{job}_")) else { continue };
        let state = state.split_whitespace().next().unwrap_or("").to_string();
        for t in task_list(tasks.trim_start_matches('[').trim_end_matches(']')) {
            out.insert(t, state.clone());
        }
    }
    out
}

/// The states of a job's array tasks from `scontrol -o show job JOB`.
pub fn parse_scontrol(text: &str) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let field = |name: &str| line.split_whitespace().find_map(|w| w.strip_prefix(&format!("{name}=")));
        if let (Some(tasks), Some(state)) = (field("ArrayTaskId"), field("JobState")) {
            for t in task_list(tasks) {
                out.insert(t, state.to_string());
            }
        }
    }
    out
}

/// `3`, `0-4`, `1,3,5-7` or `0-9%2` as task indices.
fn task_list(spec: &str) -> Vec<usize> {
    let spec = spec.split('%').next().unwrap_or("");
    let mut out = Vec::new();
    for part in spec.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    out.extend(a..=b.min(a + 100_000));
                }
            }
            None => out.extend(part.parse::<usize>().ok()),
        }
    }
    out
}

/// What Slurm says of each of `job`'s tasks, and where that came from.
pub fn task_states(job: &str) -> (BTreeMap<usize, String>, String) {
    let first_line =
        |b: &[u8]| String::from_utf8_lossy(b).lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
    let sacct = Command::new("sacct").args(["-P", "-n", "-X", "-j", job, "-o", "JobID,State"]).output();
    let sacct_failure = match sacct {
        Ok(o) if o.status.success() => {
            let states = parse_sacct(job, &String::from_utf8_lossy(&o.stdout));
            if !states.is_empty() {
                return (states, "state from sacct".into());
            }
            match first_line(&o.stderr) {
                l if l.is_empty() => "sacct knows no task of the job".to_string(),
                l => l,
            }
        }
        Ok(o) => first_line(&o.stderr),
        Err(e) => format!("cannot run sacct: {e}"),
    };
    let scontrol = Command::new("scontrol").args(["-o", "show", "job", job]).output();
    match scontrol {
        Ok(o) if o.status.success() => {
            let states = parse_scontrol(&String::from_utf8_lossy(&o.stdout));
            if !states.is_empty() {
                return (states, format!("state from scontrol, as sacct is unavailable ({sacct_failure})"));
            }
            (
                states,
                format!(
                    "Slurm no longer knows the job: sacct is unavailable ({sacct_failure}) and scontrol lists no task"
                ),
            )
        }
        Ok(o) => (
            BTreeMap::new(),
            format!(
                "Slurm no longer knows the job: sacct is unavailable ({sacct_failure}), scontrol: {}",
                first_line(&o.stderr)
            ),
        ),
        Err(e) => (BTreeMap::new(), format!("sacct is unavailable ({sacct_failure}) and scontrol cannot run: {e}")),
    }
}

/// The states in which a task will still store a result.
const LIVE: [&str; 7] = ["PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "SUSPENDED", "RESIZING"];

/// The states of a job's array tasks that are queued or running, from
/// `squeue -h -r -j JOB -o %i|%T` (one line per task).
pub fn parse_squeue(job: &str, text: &str) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some((id, state)) = line.trim().split_once('|') else { continue };
        let Some(tasks) = id.strip_prefix(&format!("{job}_")) else { continue };
        let state = state.trim().to_string();
        if LIVE.contains(&state.as_str()) {
            for t in task_list(tasks.trim_start_matches('[').trim_end_matches(']')) {
                out.insert(t, state.clone());
            }
        }
    }
    out
}

/// Every key that a queued or running task of a submitted round will
/// check, with its job: a rerun of `grade --slurm` leaves those to it.
/// `Err` is one line: squeue could not be asked, so nothing is known.
pub fn covered(results: &Results) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for round in rounds(results) {
        let Some(job) = &round.job_id else { continue };
        let q = Command::new("squeue")
            .args(["-h", "-r", "-j", job, "-o", "%i|%T"])
            .output()
            .map_err(|e| anyhow!("cannot ask squeue whether round {}'s job {job} still runs: {e}", round.round))?;
        let text = String::from_utf8_lossy(&q.stdout);
        if !q.status.success() {
            let err = String::from_utf8_lossy(&q.stderr);
            // A job the controller has forgotten has ended.
            if err.contains("Invalid job id") {
                continue;
            }
            let line = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("no message").trim().to_string();
            return Err(anyhow!("cannot ask squeue whether round {}'s job {job} still runs: {line}", round.round));
        }
        for task in parse_squeue(job, &text).keys() {
            for key in round.of_task(*task) {
                out.insert(key.clone(), job.clone());
            }
        }
    }
    Ok(out)
}

/// For every key that a round was to check and that has no stored result,
/// what Slurm says of the last task that was to check it.
pub fn states_of_missing(results: &Results, missing: &[String]) -> BTreeMap<String, TaskState> {
    let rounds = rounds(results);
    let mut asked: BTreeMap<String, (BTreeMap<usize, String>, String)> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for key in missing {
        let Some((round, at)) =
            rounds.iter().rev().find_map(|r| r.keys.iter().position(|k| k == key).map(|at| (r, at)))
        else {
            continue;
        };
        let task = at / round.batch;
        let Some(job) = &round.job_id else {
            out.insert(
                key.clone(),
                TaskState { state: None, source: format!("round {} was never submitted", round.round) },
            );
            continue;
        };
        let (states, source) = asked.entry(job.clone()).or_insert_with(|| task_states(job));
        out.insert(
            key.clone(),
            TaskState { state: states.get(&task).cloned(), source: format!("job {job}, task {task}: {source}") },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_states_are_read_from_either_tool() {
        let sacct = "41_0|COMPLETED\n41_1|TIMEOUT\n41_2|CANCELLED by 0\n41_[3-4]|PENDING\n42|COMPLETED\n";
        let s = parse_sacct("41", sacct);
        assert_eq!(s.get(&1).map(String::as_str), Some("TIMEOUT"));
        assert_eq!(s.get(&2).map(String::as_str), Some("CANCELLED"));
        assert_eq!(s.get(&4).map(String::as_str), Some("PENDING"));
        assert_eq!(s.len(), 5);
        let scontrol = "JobId=44 ArrayJobId=41 ArrayTaskId=1 JobName=ktrav-grade JobState=TIMEOUT Reason=TimeLimit\nJobId=41 ArrayJobId=41 ArrayTaskId=2-3,5%2 JobState=PENDING\n";
        let s = parse_scontrol(scontrol);
        assert_eq!(s.get(&1).map(String::as_str), Some("TIMEOUT"));
        assert_eq!(s.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 5]);
    }

    #[test]
    fn a_round_splits_into_batches() {
        let round = Round {
            round: 1,
            batch: 3,
            keys: (0..7).map(|i| i.to_string()).collect(),
            job_id: None,
            collect_job_id: None,
        };
        assert_eq!(round.tasks(), 3);
        assert_eq!(round.of_task(2), ["6"]);
        assert!(round.of_task(3).is_empty());
    }

    #[test]
    fn the_script_says_what_it_runs() {
        let round =
            Round { round: 2, batch: 1, keys: vec!["a".into(), "b".into()], job_id: None, collect_job_id: None };
        let o = SlurmOptions {
            partition: Some("gpu".into()),
            collect_partition: Some("cpu".into()),
            gres: Some("gpu:1".into()),
            time: "12".into(),
            max_parallel: Some(4),
            batch: 1,
            mem_mb: 2560,
            cpus: 3,
        };
        let s = array_script(&round, &o, Path::new("/r/grading"), Path::new("/bin/it's"));
        for line in [
            "#SBATCH --array=0-1%4",
            "#SBATCH --time=12",
            "#SBATCH --gres=gpu:1",
            "#SBATCH --partition=gpu",
            "#SBATCH --mem=2560M",
            "#SBATCH --cpus-per-task=3",
            "#SBATCH --output=/r/grading/slurm/logs/round-2-%A_%a.out",
            "unset KTRAV_LAB_SEED",
        ] {
            assert!(s.lines().any(|l| l == line), "no {line} in:\n{s}");
        }
        assert!(
            s.ends_with(
                "exec '/bin/it'\\''s' grade --task \"$SLURM_ARRAY_TASK_ID\" --round 2 --results '/r/grading'\n"
            ),
            "{s}"
        );
        let no_gres = array_script(
            &round,
            &SlurmOptions { gres: None, partition: None, ..o.clone() },
            Path::new("/r"),
            Path::new("/b"),
        );
        assert!(!no_gres.contains("--gres") && !no_gres.contains("--partition"));
        let c = collect_script(&round, &o, Path::new("/r/grading"), Path::new("/b"));
        assert!(c.ends_with("exec '/b' grade --collect '/r/grading'\n"));
        assert!(
            c.lines().any(|l| l == "#SBATCH --partition=cpu") && !c.contains("--partition=gpu"),
            "the collect job asks for the GPU partition:\n{c}"
        );
        let c =
            collect_script(&round, &SlurmOptions { collect_partition: None, ..o }, Path::new("/r"), Path::new("/b"));
        assert!(!c.contains("--partition"));
    }

    #[test]
    fn a_task_asks_for_memory_and_cpus_by_its_largest_shape() {
        assert_eq!(resources(0), (BASE_MEM_MB, 2));
        // A public battery's 4099x4097 float transpose: two buffers of 67 MB.
        let public = 2 * 4 * 4099 * 4097 + 2 * 4096 * 4;
        assert_eq!(resources(public), (BASE_MEM_MB + 193, 2));
        // A hidden shape of 2^28 floats in and out: 1 GiB a buffer.
        assert_eq!(resources(2 << 30), (BASE_MEM_MB + 3072, 4));
        assert_eq!(resources(40 << 30).1, MAX_CPUS);
    }

    #[test]
    fn squeue_says_which_tasks_are_live() {
        let text = "41_0|RUNNING\n41_1|PENDING\n41_[2-3]|PENDING\n41_4|COMPLETED\n42_0|RUNNING\n";
        assert_eq!(parse_squeue("41", text).keys().copied().collect::<Vec<_>>(), [0, 1, 2, 3]);
    }
}
