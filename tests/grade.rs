//! `appendix_k grade` end to end, as an instructor runs it: bad input is
//! refused in one line; with a fake checker (`crates/grade/tests/fake-check`)
//! every verdict lands in the gradebook, a hang and a crash change no other
//! submission's result, two devices share the work, a stopped run resumes;
//! and with the real chapter binaries and no GPU every submission that
//! compiles is "could not check", with exit code 3.

use ktrav::testing::assert_usage_errors;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_appendix_k");

/// Whether a process still runs (a zombie does not), waiting a little for
/// a killed one to go.
fn still_runs(pid: &str) -> bool {
    let stat = format!("/proc/{}/stat", pid.trim());
    for _ in 0..40 {
        match std::fs::read_to_string(&stat) {
            Err(_) => return false,
            Ok(s) if s.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => return false,
            Ok(_) => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
    true
}

fn fake_checker() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/grade/tests/fake-check")
}

fn grade(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.arg("grade").args(args).env("NO_COLOR", "1").env("KTRAV_NO_GPU", "1").env_remove("CUDA_VISIBLE_DEVICES");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("appendix_k runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The gradebook as (submission -> fields), and its header.
fn gradebook(results: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(results.join("grades.csv")).expect("a gradebook");
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r.records().map(|x| x.unwrap().iter().map(String::from).collect()).collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))
}

/// A room of fake submissions, each `// fake: MODE`, and a manifest with
/// the verdict each must get.
fn fake_room(dir: &Path) -> PathBuf {
    let room = dir.join("room");
    let subs = [
        ("alice/transpose.cu", "pass", "pass"),
        ("bob/transpose.cu", "wrong", "wrong"),
        ("carol/transpose.cu", "out-of-bounds", "out of bounds"),
        ("dave/transpose.cu", "hang", "timed out"),
        ("erin/transpose.cu", "crash", "crashed"),
        ("frank/transpose.cu", "garbage", "crashed"),
        ("grace/transpose.cu", "compile-error", "compile error"),
        ("heidi/transpose.cu", "no-kernel", "no kernel"),
        ("ivan/transpose.cu", "kernel-crash", "crashed"),
        ("judy/copy.cu", "pass-untimed", "pass"),
    ];
    let mut manifest = String::from("# every fake submission and what it must get\nfile,exercise,expect\n");
    for (file, mode, expect) in subs {
        let path = room.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // The name makes each file's content, and so its key, its own.
        std::fs::write(&path, format!("// fake: {mode}\n// {file}\n")).unwrap();
        let exercise = if file.ends_with("copy.cu") { "K.3:copy" } else { "K.2:transpose" };
        manifest.push_str(&format!("{file},{exercise},{expect}\n"));
    }
    std::fs::write(dir.join("manifest.csv"), manifest).unwrap();
    room
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let room = fake_room(d.path());
    let empty = d.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let bad_manifest = d.path().join("bad.csv");
    std::fs::write(&bad_manifest, "file,exercise,expect\nalice/transpose.cu,K.2:transpose,excellent\n").unwrap();
    let (room, empty, bad_manifest, manifest) = (
        room.to_str().unwrap(),
        empty.to_str().unwrap(),
        bad_manifest.to_str().unwrap(),
        d.path().join("manifest.csv").to_str().unwrap().to_string(),
    );
    assert_usage_errors(
        BIN,
        &[
            &["grade"],
            &["grade", room],
            &["grade", "/no/such/room", "--exercise", "K.2:transpose"],
            &["grade", room, "--exercise", "K.9:transpose"],
            &["grade", room, "--exercise", "K.2:transpse"],
            &["grade", room, "--exercise", "transpose"],
            &["grade", room, "--exercise", "K.2:transpose", "--manifest", &manifest],
            &["grade", room, "--manifest", bad_manifest],
            &["grade", room, "--manifest", "/no/such.csv"],
            &["grade", empty, "--exercise", "K.2:transpose"],
            &["grade", room, "--exercise", "K.2:transpose", "--expect"],
            &["grade", room, "--exercise", "K.2:transpose", "--timeout", "0"],
            &["grade", room, "--exercise", "K.2:transpose", "--seed", "-1"],
            &["grade", room, "--exercise", "K.2:transpose", "--partition", "gpu"],
            &["grade", room, "--exercise", "K.2:transpose", "--dry-run"],
            &["grade", room, "--exercise", "K.2:transpose", "--slurm", "--max-parallel", "x"],
            &["grade", room, "--exercise", "K.2:transpose", "--slurm", "--gres", ""],
            &["grade", "--collect", "/no/such/results"],
            &["grade", "--collect", room],
            &["grade", "--task", "0"],
            &["grade", "--task", "0", "--round", "1"],
            &["grade", room, "--exercise", "K.2:transpose", "--collect", room],
        ],
    );
}

#[test]
fn a_fake_room_gets_every_verdict_survives_a_hang_and_a_crash_and_resumes() {
    let d = tempfile::tempdir().unwrap();
    let room = fake_room(d.path());
    let results = d.path().join("results");
    let log = d.path().join("checks.log");
    let (fake, log_s) = (fake_checker(), log.to_str().unwrap().to_string());
    let env = [("KTRAV_GRADE_CHECKER", fake.to_str().unwrap()), ("KTRAV_FAKE_LOG", log_s.as_str()), ("CUDA_VISIBLE_DEVICES", "0,1")];
    let manifest = d.path().join("manifest.csv");
    let args = ["--manifest", manifest.to_str().unwrap(), "--results", results.to_str().unwrap(), "--timeout", "3", "--expect"];
    let mut full = vec![room.to_str().unwrap()];
    full.extend(args);
    let out = grade(&full, &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("10 of 10 verdicts as the manifest expects"), "{}", text(&out));
    let (header, rows) = gradebook(&results);
    assert_eq!(header, ktrav_grade::gradebook::COLUMNS);
    assert_eq!(rows.len(), 10);
    let (outcome, device, share, failures) =
        (column(&header, "outcome"), column(&header, "device"), column(&header, "share_of_copy"), column(&header, "failures"));
    let of = |name: &str| rows.iter().find(|r| r[0] == name).unwrap_or_else(|| panic!("no row {name}"));
    assert_eq!(of("alice/transpose")[outcome], "pass");
    assert_eq!(of("alice/transpose")[share], "0.800");
    assert_eq!(of("judy/copy")[share], "", "an untimed pass has no share");
    assert_eq!(of("bob/transpose")[failures], "wrong");
    assert_eq!(of("dave/transpose")[outcome], "timed out");
    assert_eq!(of("erin/transpose")[outcome], "crashed");
    assert_eq!(of("grace/transpose")[column(&header, "compile_error")], "a.cu(3): error: expected a \";\"");
    // Each check ran on one of the two devices, and both were used.
    assert!(rows.iter().all(|r| r[device] == "0" || r[device] == "1"), "{rows:?}");
    // The hung check's own child was killed with it.
    let pid = std::fs::read_to_string(room.join("dave/transpose.cu.pid")).unwrap();
    assert!(!still_runs(&pid), "the hung checker's child {pid} still runs");
    for r in &rows {
        for format in ["gradescope", "prairielearn"] {
            let f = results.join(format).join(&r[0]).join("results.json");
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            assert!(v.is_object(), "{}", f.display());
        }
    }
    let summary = std::fs::read_to_string(results.join("summary.md")).unwrap();
    assert!(summary.contains("| K.2:transpose | 9 |") && summary.contains("| K.3:copy | 1 |"), "{summary}");
    let checks = || std::fs::read_to_string(&log).unwrap().lines().count();
    assert_eq!(checks(), 10);

    // A rerun checks nothing and writes the same gradebook.
    let before = std::fs::read_to_string(results.join("grades.csv")).unwrap();
    let again = grade(&full, &env);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(checks(), 10, "a rerun checked again what was stored");
    assert_eq!(std::fs::read_to_string(results.join("grades.csv")).unwrap(), before);

    // A lost result is checked again, and only it.
    let plan: ktrav_grade::plan::Plan = serde_json::from_str(&std::fs::read_to_string(results.join("plan.json")).unwrap()).unwrap();
    let bob = plan.jobs.iter().find(|j| j.submission == "bob/transpose").unwrap();
    std::fs::remove_file(results.join("records").join(format!("{}.json", bob.key))).unwrap();
    let third = grade(&full, &env);
    assert_eq!(third.status.code(), Some(0), "{}", text(&third));
    assert_eq!(checks(), 11);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.lines().last().unwrap().ends_with("bob/transpose.cu"), "{logged}");

    // A manifest that expects otherwise makes --expect fail, naming the row.
    let wrong_manifest = d.path().join("wrong.csv");
    std::fs::write(&wrong_manifest, "file,exercise,expect\nbob/transpose.cu,K.2:transpose,pass\n").unwrap();
    let out = grade(&[room.to_str().unwrap(), "--manifest", wrong_manifest.to_str().unwrap(), "--results", results.to_str().unwrap(), "--expect"], &env);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("unexpected: K.2:transpose bob/transpose: expected pass, got fail (wrong)"), "{}", text(&out));
}

#[test]
fn a_stopped_run_kills_its_checks_and_resumes() {
    let d = tempfile::tempdir().unwrap();
    let room = d.path().join("room");
    std::fs::create_dir_all(&room).unwrap();
    std::fs::write(room.join("a.cu"), "// fake: pass\n").unwrap();
    std::fs::write(room.join("b.cu"), "// fake: hang\n").unwrap();
    let results = d.path().join("results");
    let fake = fake_checker();
    let child = Command::new(BIN)
        .args(["grade", room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap(), "--timeout", "120"])
        .env("KTRAV_GRADE_CHECKER", &fake)
        .env("KTRAV_NO_GPU", "1")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid_file = room.join("b.cu.pid");
    let started = std::time::Instant::now();
    while !(pid_file.exists() && std::fs::read_dir(results.join("records")).is_ok_and(|d| d.count() == 1)) {
        assert!(started.elapsed().as_secs() < 30, "the checks did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run the same command again to resume"));
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(!still_runs(&pid), "the stopped run left its check running");
    // Resumed with a shorter limit, only the hang is checked.
    std::fs::write(room.join("b.cu"), "// fake: pass\n// now it passes\n").unwrap();
    let out = grade(&[room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap()], &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("2 submissions: 2 pass"), "{}", text(&out));
}

/// The chapter binaries `grade` runs by default, built beside this one.
fn chapters_built() -> PathBuf {
    let dir = Path::new(BIN).parent().unwrap().to_path_buf();
    for ch in ["k2_transpose", "k3_grid_mapping", "k4_boundary_check"] {
        assert!(dir.join(ch).is_file(), "{} is not built: run cargo test at the workspace root (or cargo build -p {ch})", dir.join(ch).display());
    }
    dir
}

#[test]
fn without_a_gpu_every_submission_that_compiles_could_not_be_checked() {
    chapters_built();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = tempfile::tempdir().unwrap();
    let room = d.path().join("room");
    std::fs::create_dir_all(&room).unwrap();
    std::fs::copy(root.join("kernels/k2_transpose.cu"), room.join("solution.cu")).unwrap();
    std::fs::copy(root.join("exercises/k2_transpose/transpose.cu"), room.join("starter.cu")).unwrap();
    std::fs::copy(root.join("exercises/k2_transpose/wrong/swapped_xy.cu"), room.join("swapped.cu")).unwrap();
    let solution = std::fs::read_to_string(root.join("kernels/k2_transpose.cu")).unwrap();
    let broken = solution.replacen("__syncthreads();", "__syncthreads()", 1);
    assert_ne!(broken, solution);
    std::fs::write(room.join("broken.cu"), broken).unwrap();
    let results = d.path().join("results");
    let out = grade(&[room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let (header, rows) = gradebook(&results);
    let (outcome, note) = (column(&header, "outcome"), column(&header, "note"));
    let nvrtc = rows.iter().any(|r| r[note].contains("the file compiles"));
    for r in &rows {
        if r[0] == "broken" && nvrtc {
            assert_eq!(r[outcome], "compile error", "{r:?}");
            assert!(!r[column(&header, "compile_error")].is_empty());
        } else {
            assert_eq!(r[outcome], "could not check", "{r:?}");
        }
    }
    if !nvrtc {
        eprintln!("note: no NVRTC here, so the file that does not compile could not be checked either");
    }
}

/// `scripts/make-room` assembles a room of at least 40 submissions from
/// `exercises/` and `kernels/`, with a manifest naming each one's exercise
/// and verdict, which `grade` reads without complaint.
#[test]
fn make_room_writes_a_well_formed_room() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = tempfile::tempdir().unwrap();
    let room = d.path().join("room");
    let out = Command::new("bash").arg(root.join("scripts/make-room")).arg(&room).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let manifest = room.join("manifest.csv");
    let catalogue: Vec<ktrav_grade::exercise::ExerciseRef> = appendix_k::CHAPTERS
        .iter()
        .flat_map(|ch| ch.exercises.iter().map(|e| ktrav_grade::exercise::ExerciseRef::new(ch.section, ch.id, e.id)))
        .collect();
    let rows = ktrav_grade::plan::read_manifest(&manifest, &room, &catalogue).unwrap_or_else(|e| panic!("{e}"));
    assert!(rows.len() >= 40, "{} submissions", rows.len());
    let page = std::fs::read_to_string(root.join("book/lab.md")).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(page.contains(&format!("a room of {} submissions", rows.len())), "book/lab.md does not give the room's size, {}", rows.len());
    let files: Vec<PathBuf> = ktrav_grade::plan::discover(&room, None).unwrap().files;
    assert_eq!(files.len(), rows.len(), "every .cu file in the room is in the manifest, once");
    let expects: Vec<&str> = rows.iter().map(|r| r.2.public.as_deref().expect("every row names its verdict")).collect();
    for verdict in ["pass", "wrong", "unwritten", "out of bounds", "launch error", "crashed", "did not finish", "compile error", "no kernel"] {
        assert!(expects.contains(&verdict), "no submission expects {verdict}");
    }
    for e in &catalogue {
        assert!(
            rows.iter().any(|r| r.1 == *e && r.2.public.as_deref() == Some("pass")),
            "no passing submission of {e}"
        );
    }
    // The kernels only the hidden battery rejects pass the public one and
    // carry what the hidden one must say: the uint32 index only with --large.
    let hidden_of = |stem: &str| rows.iter().find(|r| r.0.to_string_lossy().ends_with(stem)).map(|r| r.2.clone()).unwrap_or_else(|| panic!("no {stem} in the room"));
    let stale = hidden_of("stale_whole_tile.cu");
    assert_eq!((stale.public.as_deref(), stale.hidden.as_deref()), (Some("pass"), Some("fail")));
    let short = hidden_of("short_row_index.cu");
    assert_eq!((short.public.as_deref(), short.hidden.as_deref()), (Some("pass"), Some("unwritten")));
    let uint32 = hidden_of("uint32_index.cu");
    assert_eq!((uint32.public.as_deref(), uint32.hidden.as_deref(), uint32.hidden_large.as_deref()), (Some("pass"), None, Some("fail")));
    // The synthetic kernels say what they are.
    let synthetic = |name: &str| std::fs::read_to_string(room.join("synthetic").join(name)).unwrap();
    assert!(synthetic("k6-long-long-params.cu").contains("long long rows, long long cols"));
    assert!(!synthetic("k3-no-extern-c.cu").contains("extern \"C\" __global__ void copy_x_to_col"));
    assert!(synthetic("k2-include-cuda-runtime.cu").starts_with("#include <cuda_runtime.h>"));
    assert!(synthetic("k4-include-cstdio.cu").starts_with("#include <cstdio>"));
    // Every find-the-bug exercise has its starter in the room, expected to
    // fail, and the starter fixed, expected to pass; the fixes carry no
    // expect line of their own.
    for ch in appendix_k::CHAPTERS {
        for ex in ch.exercises.iter().filter(|e| e.starter == "find_the_bug.cu") {
            let e = ktrav_grade::exercise::ExerciseRef::new(ch.section, ch.id, ex.id);
            let of = |folder: &str, verdict: &dyn Fn(&str) -> bool| {
                rows.iter().any(|r| r.1 == e && r.0.strip_prefix(&room).unwrap().starts_with(folder) && r.2.public.as_deref().is_some_and(verdict))
            };
            assert!(of("exercises", &|v| v != "pass"), "the find-the-bug starter of {e} is not in the room, failing");
            assert!(of("fixes", &|v| v == "pass"), "no fixed find-the-bug starter of {e}");
        }
    }
    let fixed = |name: &str| std::fs::read_to_string(room.join("fixes").join(name)).unwrap();
    assert!(fixed("k6-spiral-find-the-bug-long-long-params.cu").contains("long long rows, long long cols"));
    assert!(fixed("k3-copy-find-the-bug.cu").starts_with("#include <cuda_runtime.h>"));
    assert!(fixed("k5-col-major-find-the-bug.cu").starts_with("#include <cstdio>"));
    for f in std::fs::read_dir(room.join("fixes")).unwrap() {
        let f = f.unwrap().path();
        assert!(!std::fs::read_to_string(&f).unwrap().contains("// expect: "), "{} keeps an expect line", f.display());
    }
    // The same folder made twice is the same folder.
    let again = d.path().join("again");
    assert!(Command::new("bash").arg(root.join("scripts/make-room")).arg(&again).output().unwrap().status.success());
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), std::fs::read_to_string(again.join("manifest.csv")).unwrap());
    // A room that is there already is not overwritten.
    let out = Command::new("bash").arg(root.join("scripts/make-room")).arg(&room).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// `--slurm --dry-run` prints the round's job scripts, and writes and
/// submits nothing.
#[test]
fn a_dry_run_prints_the_slurm_scripts_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let room = fake_room(d.path());
    let results = d.path().join("results");
    let out = grade(
        &[room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap(), "--slurm", "--dry-run", "--partition", "gpu", "--max-parallel", "4", "--timeout", "120"],
        &[("PATH", "/nonexistent")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let script = String::from_utf8_lossy(&out.stdout);
    for line in ["#SBATCH --array=0-9%4", "#SBATCH --gres=gpu:1", "#SBATCH --partition=gpu", "#SBATCH --time=4", "#SBATCH --job-name=ktrav-collect"] {
        assert!(script.lines().any(|l| l == line), "no {line} in:\n{script}");
    }
    let exe = std::fs::canonicalize(BIN).unwrap();
    assert!(script.contains(&format!("exec '{}' grade --task \"$SLURM_ARRAY_TASK_ID\" --round 1 --results '{}'", exe.display(), results.display())), "{script}");
    assert!(script.contains(&format!("exec '{}' grade --collect '{}'", exe.display(), results.display())), "{script}");
    assert!(!results.exists(), "a dry run wrote {}", results.display());
}

/// The lab page lists the gradebook's columns as the code writes them.
#[test]
fn the_lab_page_names_the_gradebooks_columns() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("book/lab.md")).unwrap();
    let line = ktrav_grade::gradebook::COLUMNS.join(",");
    assert!(page.lines().any(|l| l.trim() == line), "book/lab.md does not list the columns {line}");
    for o in ktrav_grade::gradebook::Outcome::ALL {
        assert!(page.contains(&format!("`{}`", o.as_str())), "book/lab.md does not name the outcome {}", o.as_str());
    }
    for e in ktrav_grade::plan::EXPECTATIONS {
        assert!(page.contains(&format!("`{e}`")), "book/lab.md does not say what --expect makes of {e}");
    }
}
