//! `appendix_k grade --slurm` on a real one-node Slurm cluster, started
//! here from Debian's packages (`slurmctld`, `slurmd`, `slurm-client`,
//! `munge`; `.ci/run` installs them): a fresh munge key, a `slurm.conf`
//! with this machine's own name as controller and only node
//! (`ProctrackType=proctrack/linuxproc`, `TaskPlugin=task/none`, no
//! accounting database), the daemons started in the background and
//! stopped at the end. It checks, overlapping in time:
//!
//! * a room graded through Slurm with the real chapter binaries and no GPU:
//!   every task ends "could not check", and the gradebook the dependent
//!   collect job writes is byte for byte the local `grade`'s of the same room;
//! * a task made to run past its Slurm time limit (`--time 1`) is reported
//!   as timed out, with Slurm's TIMEOUT and where that was read;
//! * a second `grade --slurm` submits only what has no result, and one made
//!   while a round's tasks are queued or running submits nothing;
//! * every task asks for the `--mem` and `--cpus-per-task` its largest
//!   shape needs, and Slurm records them on the job;
//! * `--dry-run` writes scripts that run when submitted by hand.
//!
//! Own harness, so that what it did is always printed: where Slurm cannot
//! be started it prints one line saying so and why, and counts one skip.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_appendix_k");

struct Cluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
}

fn run(cmd: &mut Command) -> Result<Output, String> {
    cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))
}

fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).split('.').next().unwrap_or("").to_string()
}

/// Starts a munged of its own under `d`, with a fresh key (1024 random
/// bytes, readable by its owner only), and returns its socket.
fn start_munge(d: &Path) -> Result<PathBuf, String> {
    let key = d.join("munge.key");
    let mut bytes = vec![0u8; 1024];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom").map_err(|e| e.to_string())?, &mut bytes)
        .map_err(|e| e.to_string())?;
    std::fs::write(&key, bytes).map_err(|e| e.to_string())?;
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).map_err(|e| e.to_string())?;
    let socket = d.join("munge.sock");
    let munged = run(Command::new("munged")
        .arg("--force")
        .arg(format!("--key-file={}", key.display()))
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--pid-file={}", d.join("munged.pid").display()))
        .arg(format!("--log-file={}", d.join("log/munged.log").display()))
        .arg(format!("--seed-file={}", d.join("munged.seed").display())))?;
    if !munged.status.success() {
        return Err(format!("munged did not start: {}", String::from_utf8_lossy(&munged.stderr).trim()));
    }
    Ok(socket)
}

/// A `slurm.conf` for a cluster of this machine alone, its state, spool,
/// pid and log files under `d`, on two free ports, authenticated by the
/// munged at `socket`.
fn slurm_conf(d: &Path, socket: &Path) -> Result<String, String> {
    let host = host_name();
    let (ctl_port, d_port) = (free_port()?, free_port()?);
    let p = |name: &str| d.join(name).display().to_string();
    Ok(format!(
        "ClusterName=ktravci
SlurmctldHost={host}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={socket}
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctl_port}
SlurmdPort={d_port}
StateSaveLocation={state}
SlurmdSpoolDir={spool}
SlurmctldPidFile={ctlpid}
SlurmdPidFile={dpid}
SlurmctldLogFile={ctllog}
SlurmdLogFile={dlog}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=2
MinJobAge=600
InactiveLimit=0
OverTimeLimit=0
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
NodeName={host} CPUs=8 RealMemory=64000 State=UNKNOWN
PartitionName=lab Nodes={host} Default=YES MaxTime=INFINITE State=UP
",
        socket = socket.display(),
        state = p("state"),
        spool = p("spool"),
        ctlpid = p("slurmctld.pid"),
        dpid = p("slurmd.pid"),
        ctllog = p("log/slurmctld.log"),
        dlog = p("log/slurmd.log"),
    ))
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        for tool in ["munged", "slurmctld", "slurmd", "sbatch", "scontrol", "squeue"] {
            if run(Command::new("sh").args(["-c", &format!("command -v {tool}")]))?.status.code() != Some(0) {
                return Err(format!("{tool} is not installed (apt-get install slurmctld slurmd slurm-client munge)"));
            }
        }
        // SAFETY: geteuid only reads this process's user id.
        if unsafe { libc::geteuid() } != 0 {
            return Err("slurmd must run as root to start jobs, and this is not root".into());
        }
        let dir = tempfile::Builder::new().prefix("ktrav-slurm").tempdir().map_err(|e| e.to_string())?;
        let d = dir.path().to_path_buf();
        for sub in ["state", "spool", "log"] {
            std::fs::create_dir_all(d.join(sub)).map_err(|e| e.to_string())?;
        }
        let socket = start_munge(&d)?;
        let conf = d.join("slurm.conf");
        std::fs::write(&conf, slurm_conf(&d, &socket)?).map_err(|e| e.to_string())?;
        let cluster = Cluster { dir, conf };
        for daemon in ["slurmctld", "slurmd"] {
            let out = run(Command::new(daemon).arg("-f").arg(&cluster.conf).env("SLURM_CONF", &cluster.conf))?;
            if !out.status.success() {
                return Err(format!("{daemon} did not start: {}", String::from_utf8_lossy(&out.stderr).trim()));
            }
        }
        cluster.wait_until_idle()?;
        Ok(cluster)
    }

    /// Waits up to 30 s for the node to come up idle.
    fn wait_until_idle(&self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            let out = run(self.cmd("sinfo").args(["-h", "-o", "%T"]))?;
            let state = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if state == "idle" {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(30) {
                let log = std::fs::read_to_string(self.dir.path().join("log/slurmd.log")).unwrap_or_default();
                let last = log.lines().last().unwrap_or("").to_string();
                return Err(format!(
                    "the node did not come up in 30 s (sinfo says '{state}'; slurmd's log ends: {last})"
                ));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn cmd(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// Waits until `job` has left the queue.
    fn wait_for(&self, job: &str, limit: Duration) -> Result<(), String> {
        let started = Instant::now();
        loop {
            let out = run(self.cmd("squeue").args(["-h", "-j", job, "-o", "%i %T"]))?;
            if String::from_utf8_lossy(&out.stdout).trim().is_empty() {
                return Ok(());
            }
            if started.elapsed() > limit {
                return Err(format!("job {job} still queued after {} s", limit.as_secs()));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.cmd("scancel").args(["--user=root"]).output();
        for pid_file in ["slurmd.pid", "slurmctld.pid", "munged.pid"] {
            if let Ok(pid) = std::fs::read_to_string(self.dir.path().join(pid_file)) {
                if let Ok(pid) = pid.trim().parse::<i32>() {
                    // SAFETY: signals the daemon this test started.
                    unsafe { libc::kill(pid, libc::SIGTERM) };
                }
            }
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn fake_checker() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/grade/tests/fake-check")
}

/// `appendix_k grade ARGS` with the cluster's configuration.
fn grade(cluster: &Cluster, args: &[&str], env: &[(&str, &str)]) -> Result<Output, String> {
    let mut c = cluster.cmd(BIN);
    c.arg("grade")
        .args(args)
        .env("NO_COLOR", "1")
        .env("KTRAV_NO_GPU", "1")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c)
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Submits `args` through Slurm and returns the round's collect job.
fn submit(
    cluster: &Cluster,
    args: &[&str],
    env: &[(&str, &str)],
    results: &Path,
    round: u32,
) -> Result<String, String> {
    let out = grade(cluster, args, env)?;
    if out.status.code() != Some(0) {
        return Err(format!("grade --slurm failed: {}", text(&out)));
    }
    let job = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if job.is_empty() || !job.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("grade --slurm printed no job id: {}", text(&out)));
    }
    let r: serde_json::Value =
        serde_json::from_str(&read(&results.join(format!("slurm/round-{round}.json")))?).map_err(|e| e.to_string())?;
    if r["job_id"].as_str() != Some(job.as_str()) {
        return Err(format!("round {round} does not name job {job}: {r}"));
    }
    r["collect_job_id"].as_str().map(String::from).ok_or_else(|| format!("round {round} has no collect job: {r}"))
}

fn room(dir: &Path, files: &[(&str, String)]) -> PathBuf {
    let room = dir.join("room");
    for (name, content) in files {
        std::fs::create_dir_all(room.join(name).parent().unwrap()).unwrap();
        std::fs::write(room.join(name), content).unwrap();
    }
    room
}

/// With no GPU every task says "could not check", and the gradebook the
/// collect job writes is the local run's.
fn no_gpu_matches_the_local_run(cluster: &Cluster, d: &Path) -> Result<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let k = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let room = room(
        d,
        &[
            ("alice/transpose.cu", k("kernels/k2_transpose.cu")),
            ("bob/copy.cu", k("exercises/k3_grid_mapping/copy.cu")),
            ("carol/guard.cu", k("kernels/k4_boundary_check.cu")),
        ],
    );
    let manifest = d.join("manifest.csv");
    std::fs::write(
        &manifest,
        "file,exercise\nalice/transpose.cu,K.2:transpose\nbob/copy.cu,K.3:copy\ncarol/guard.cu,K.4:guard\n",
    )
    .unwrap();
    let (local, remote) = (d.join("local"), d.join("slurm"));
    let base = [room.to_str().unwrap(), "--manifest", manifest.to_str().unwrap()];
    let mut args = base.to_vec();
    args.extend(["--results", local.to_str().unwrap()]);
    let out = grade(cluster, &args, &[])?;
    if out.status.code() != Some(3) {
        return Err(format!("the local grade without a GPU exited {:?}, not 3: {}", out.status.code(), text(&out)));
    }
    let mut args = base.to_vec();
    args.extend(["--results", remote.to_str().unwrap(), "--slurm", "--gres", "none", "--time", "2"]);
    let collect = submit(cluster, &args, &[], &remote, 1)?;
    cluster.wait_for(&collect, Duration::from_secs(120))?;
    let (l, r) = (read(&local.join("grades.csv"))?, read(&remote.join("grades.csv"))?);
    if l != r {
        return Err(format!("the Slurm gradebook differs from the local one:\nlocal:\n{l}\nslurm:\n{r}"));
    }
    let rows: Vec<&str> = r.lines().skip(1).collect();
    if rows.len() != 3 || !rows.iter().all(|l| l.contains(",could not check,")) {
        return Err(format!("not every submission could not be checked:\n{r}"));
    }
    let script = read(&remote.join("slurm/round-1.sbatch"))?;
    if !script.contains("#SBATCH --array=0-2\n") || script.contains("--gres") {
        return Err(format!("the kept script is not the round's:\n{script}"));
    }
    // The memory each task asked for, as the script says and Slurm granted.
    let mem = script
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --mem="))
        .ok_or_else(|| format!("the script asks for no --mem:\n{script}"))?
        .to_string();
    if !script.contains("#SBATCH --cpus-per-task=2\n") {
        return Err(format!("the script asks for no --cpus-per-task=2:\n{script}"));
    }
    let round: serde_json::Value =
        serde_json::from_str(&read(&remote.join("slurm/round-1.json"))?).map_err(|e| e.to_string())?;
    let job = round["job_id"].as_str().unwrap_or("").to_string();
    let shown = run(cluster.cmd("scontrol").args(["-o", "show", "job", &job]))?;
    let shown = String::from_utf8_lossy(&shown.stdout).to_string();
    if !shown.contains(&format!("MinMemoryNode={mem}")) || !shown.contains("CPUs/Task=2") {
        return Err(format!(
            "Slurm did not take --mem={mem} and --cpus-per-task=2: {}",
            shown.lines().next().unwrap_or("")
        ));
    }
    for f in ["gradescope/alice/transpose/results.json", "prairielearn/bob/copy/results.json", "summary.md"] {
        if read(&remote.join(f))? != read(&local.join(f))? {
            return Err(format!("{f} differs between the Slurm run and the local one"));
        }
    }
    Ok(format!("3 submissions through Slurm, every one could not check, the gradebook and results files the local run's; each task granted --mem={mem}"))
}

/// Starts a round whose one task hangs past `--time 1`; submitted again
/// while it runs, nothing new is submitted.
fn start_time_limit(cluster: &Cluster, d: &Path) -> Result<(PathBuf, String), String> {
    let room = room(d, &[("quick.cu", "// fake: pass\n".into()), ("stuck.cu", "// fake: hang\n".into())]);
    let results = d.join("results");
    let fake = fake_checker();
    let args = [
        room.to_str().unwrap(),
        "--exercise",
        "K.2:transpose",
        "--results",
        results.to_str().unwrap(),
        "--timeout",
        "600",
        "--slurm",
        "--gres",
        "none",
        "--time",
        "1",
    ];
    let env = [("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())];
    let collect = submit(cluster, &args, &env, &results, 1)?;
    Ok((results, collect))
}

/// The same `grade --slurm` again while round 1's stuck task runs.
fn rerun_while_queued(cluster: &Cluster, d: &Path) -> Result<String, String> {
    let (room, results) = (d.join("room"), d.join("results"));
    let fake = fake_checker();
    let args = [
        room.to_str().unwrap(),
        "--exercise",
        "K.2:transpose",
        "--results",
        results.to_str().unwrap(),
        "--timeout",
        "600",
        "--slurm",
        "--gres",
        "none",
        "--time",
        "1",
    ];
    let out = grade(cluster, &args, &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())])?;
    if out.status.code() != Some(0)
        || !text(&out).contains("nothing to submit")
        || !text(&out).contains("queued or running")
    {
        return Err(format!("a rerun while round 1 runs did not leave it to round 1: {}", text(&out)));
    }
    if results.join("slurm/round-2.json").exists() {
        return Err("a rerun while round 1 runs wrote a round 2".into());
    }
    Ok(format!("a rerun while round 1 ran submitted nothing: {}", String::from_utf8_lossy(&out.stdout).trim()))
}

/// `--dry-run` writes the scripts and what they read; submitted by hand,
/// as the dry run says, they grade the room.
fn dry_run_submitted_by_hand(cluster: &Cluster, d: &Path) -> Result<String, String> {
    let room = room(d, &[("a.cu", "// fake: pass\n".into()), ("b.cu", "// fake: wrong\n".into())]);
    let results = d.join("results");
    let fake = fake_checker();
    let env = [("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())];
    let args = [
        room.to_str().unwrap(),
        "--exercise",
        "K.3:copy",
        "--results",
        results.to_str().unwrap(),
        "--seed",
        "11",
        "--slurm",
        "--gres",
        "none",
        "--time",
        "1",
        "--dry-run",
    ];
    let out = grade(cluster, &args, &env)?;
    if out.status.code() != Some(0) {
        return Err(format!("the dry run failed: {}", text(&out)));
    }
    if results.join("slurm/round-1.json").is_file()
        && read(&results.join("slurm/round-1.json"))?.contains("\"job_id\": \"")
    {
        return Err("the dry run submitted a job".into());
    }
    let array = results.join("slurm/round-1.sbatch");
    let collect = results.join("slurm/collect-1.sbatch");
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    if !said.contains("sbatch --parsable") || !said.contains("--dependency=afterany:$job") {
        return Err(format!("the dry run does not say how to submit: {said}"));
    }
    let mut sbatch = cluster.cmd("sbatch");
    sbatch.arg("--parsable").arg(&array).env("KTRAV_GRADE_CHECKER", &fake);
    let job = String::from_utf8_lossy(&run(&mut sbatch)?.stdout).trim().to_string();
    if job.is_empty() {
        return Err("sbatch took no job from the dry run's script".into());
    }
    let mut then = cluster.cmd("sbatch");
    then.arg("--parsable").arg(format!("--dependency=afterany:{job}")).arg(&collect);
    let collector = String::from_utf8_lossy(&run(&mut then)?.stdout).trim().to_string();
    cluster.wait_for(&collector, Duration::from_secs(120))?;
    let book = read(&results.join("grades.csv"))?;
    if !book.lines().any(|l| l.starts_with("a,K.3:copy,pass,graded,"))
        || !book.lines().any(|l| l.starts_with("b,K.3:copy,fail,graded,"))
    {
        return Err(format!("the hand-submitted round did not grade the room:\n{book}"));
    }
    Ok("the scripts a dry run wrote graded the room when submitted by hand, with the seed read from its file".into())
}

fn finish_time_limit(cluster: &Cluster, results: &Path, collect: &str) -> Result<String, String> {
    let started = Instant::now();
    cluster.wait_for(collect, Duration::from_secs(240))?;
    let book = read(&results.join("grades.csv"))?;
    let stuck = book.lines().find(|l| l.starts_with("stuck,")).ok_or_else(|| format!("no row for stuck:\n{book}"))?;
    if !stuck.contains(",timed out,") || !stuck.contains("TIMEOUT") {
        return Err(format!("the task past its time limit is not reported as such: {stuck}"));
    }
    if !book.lines().any(|l| l.starts_with("quick,K.2:transpose,pass,")) {
        return Err(format!("the other task's verdict changed:\n{book}"));
    }
    let source = if stuck.contains("from sacct") {
        "sacct"
    } else if stuck.contains("from scontrol") {
        "scontrol (no accounting database)"
    } else {
        "?"
    };
    Ok(format!(
        "the task past --time 1 is 'timed out', Slurm's TIMEOUT read from {source} ({} s more after the other checks)",
        started.elapsed().as_secs()
    ))
}

/// A second `grade --slurm` submits only what has no stored result.
fn resubmits_only_what_is_missing(cluster: &Cluster, d: &Path) -> Result<String, String> {
    let room = room(
        d,
        &[("a.cu", "// fake: pass\n".into()), ("b.cu", "// fake: wrong\n".into()), ("c.cu", "// fake: crash\n".into())],
    );
    let results = d.join("results");
    let log = d.join("checks.log");
    let fake = fake_checker();
    let env = [("KTRAV_GRADE_CHECKER", fake.to_str().unwrap()), ("KTRAV_FAKE_LOG", log.to_str().unwrap())];
    let args = [
        room.to_str().unwrap(),
        "--exercise",
        "K.3:copy",
        "--results",
        results.to_str().unwrap(),
        "--slurm",
        "--gres",
        "none",
        "--time",
        "1",
        "--max-parallel",
        "2",
    ];
    let collect = submit(cluster, &args, &env, &results, 1)?;
    cluster.wait_for(&collect, Duration::from_secs(120))?;
    let first = read(&results.join("grades.csv"))?;
    let checked = || read(&log).map(|t| t.lines().count());
    if checked()? != 3 {
        return Err(format!("round 1 made {} checks, not 3", checked()?));
    }
    let plan: serde_json::Value =
        serde_json::from_str(&read(&results.join("plan.json"))?).map_err(|e| e.to_string())?;
    let b = plan["jobs"].as_array().unwrap().iter().find(|j| j["submission"] == "b").unwrap();
    std::fs::remove_file(results.join(format!("records/{}.json", b["key"].as_str().unwrap())))
        .map_err(|e| e.to_string())?;
    let collect = submit(cluster, &args, &env, &results, 2)?;
    cluster.wait_for(&collect, Duration::from_secs(120))?;
    let round: serde_json::Value =
        serde_json::from_str(&read(&results.join("slurm/round-2.json"))?).map_err(|e| e.to_string())?;
    if round["keys"].as_array().map(Vec::len) != Some(1) || checked()? != 4 {
        return Err(format!("the second round was not just the missing one: {round}, {} checks", checked()?));
    }
    if read(&results.join("grades.csv"))? != first {
        return Err("the gradebook changed when a lost result was checked again".into());
    }
    let out = grade(cluster, &args, &env)?;
    if !text(&out).contains("nothing to submit") || checked()? != 4 {
        return Err(format!("a third run with nothing missing submitted something: {}", text(&out)));
    }
    Ok("a second grade --slurm submitted the one lost result and nothing else; a third, nothing".into())
}

fn main() {
    let started = Instant::now();
    let cluster = match Cluster::start() {
        Ok(c) => c,
        Err(why) => {
            println!("slurm: skipped: a one-node Slurm cluster could not be started here: {why}");
            println!("0 passed, 0 failed, 1 skipped");
            return;
        }
    };
    println!(
        "slurm: a one-node cluster started in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        cluster.conf.display()
    );
    let (mut passed, mut failed) = (0, 0);
    let mut report = |name: &str, r: Result<String, String>| match r {
        Ok(what) => {
            println!("slurm {name}: ok: {what}");
            passed += 1;
        }
        Err(why) => {
            println!("slurm {name}: FAILED: {why}");
            failed += 1;
        }
    };
    let dirs: Vec<tempfile::TempDir> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let limit = start_time_limit(&cluster, dirs[0].path());
    report("rerun while queued", limit.clone().and_then(|_| rerun_while_queued(&cluster, dirs[0].path())));
    report("no GPU", no_gpu_matches_the_local_run(&cluster, dirs[1].path()));
    report("dry run", dry_run_submitted_by_hand(&cluster, dirs[3].path()));
    report("resubmission", resubmits_only_what_is_missing(&cluster, dirs[2].path()));
    report("time limit", limit.and_then(|(results, collect)| finish_time_limit(&cluster, &results, &collect)));
    if failed > 0 {
        let log = std::fs::read_to_string(cluster.dir.path().join("log/slurmctld.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        println!("slurmctld's log ends:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    drop(cluster);
    println!("slurm: {:.0} s in all", started.elapsed().as_secs_f64());
    println!("{passed} passed, {failed} failed, 0 skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}
