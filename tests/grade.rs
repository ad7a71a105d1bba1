//! `appendix_k grade` end to end, as an instructor runs it: bad input is
//! refused in one line; with a fake checker (`crates/grade/tests/fake-check`)
//! every verdict lands in the gradebook, a hang and a crash change no other
//! submission's result, two devices share the work, a stopped run resumes;
//! and with the real chapter binaries and no GPU every submission that
//! compiles is "could not check", with exit code 3.

use ktrav::lab::FailureKind;
use ktrav_grade::plan::Expectation;
use ktrav_testing::assert_usage_errors;
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
    cmd.arg("grade")
        .args(args)
        .env("NO_COLOR", "1")
        .env("KTRAV_NO_GPU", "1")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .env_remove(ktrav::lab::SEED_ENV);
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
            &["grade", room, "--exercise", "K.2:transpose", "--points", "/no/such.toml"],
            &["grade", room, "--exercise", "K.2:transpose", "--collect-partition", "cpu"],
            &["grade", "--collect", room, "--publish-hidden"],
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
    let env = [
        ("KTRAV_GRADE_CHECKER", fake.to_str().unwrap()),
        ("KTRAV_FAKE_LOG", log_s.as_str()),
        ("CUDA_VISIBLE_DEVICES", "0,1"),
    ];
    let manifest = d.path().join("manifest.csv");
    let args = [
        "--manifest",
        manifest.to_str().unwrap(),
        "--results",
        results.to_str().unwrap(),
        "--timeout",
        "3",
        "--expect",
    ];
    let mut full = vec![room.to_str().unwrap()];
    full.extend(args);
    let out = grade(&full, &env);
    // The hang and the two checkers that crashed are the grader's failures:
    // no score, and exit code 3.
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("10 of 10 verdicts as the manifest expects"), "{}", text(&out));
    assert!(text(&out).contains("3 need a regrade"), "{}", text(&out));
    assert!(text(&out).contains("1 timed out, 2 checker crashed"), "{}", text(&out));
    assert_every_verdict(&results, &room);
    let checks = || std::fs::read_to_string(&log).unwrap().lines().count();
    assert_eq!(checks(), 10);

    // A rerun checks nothing and writes the same gradebook.
    let before = std::fs::read_to_string(results.join("grades.csv")).unwrap();
    let again = grade(&full, &env);
    assert_eq!(again.status.code(), Some(3), "{}", text(&again));
    assert_eq!(checks(), 10, "a rerun checked again what was stored");
    assert_eq!(std::fs::read_to_string(results.join("grades.csv")).unwrap(), before);

    // A lost result is checked again, and only it.
    let plan: ktrav_grade::plan::Plan =
        serde_json::from_str(&std::fs::read_to_string(results.join("plan.json")).unwrap()).unwrap();
    let bob = plan.jobs.iter().find(|j| j.submission == "bob/transpose").unwrap();
    std::fs::remove_file(results.join("records").join(format!("{}.json", bob.key))).unwrap();
    let third = grade(&full, &env);
    assert_eq!(third.status.code(), Some(3), "{}", text(&third));
    assert_eq!(checks(), 11);
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.lines().last().unwrap().ends_with("bob/transpose.cu"), "{logged}");

    // A manifest that expects otherwise makes --expect fail, naming the row.
    let wrong_manifest = d.path().join("wrong.csv");
    std::fs::write(&wrong_manifest, "file,exercise,expect\nbob/transpose.cu,K.2:transpose,pass\n").unwrap();
    let out = grade(
        &[
            room.to_str().unwrap(),
            "--manifest",
            wrong_manifest.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
            "--expect",
        ],
        &env,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("unexpected: K.2:transpose bob/transpose: expected pass, got fail (wrong)"),
        "{}",
        text(&out)
    );
}

/// The fake room's gradebook and files after a first run: every verdict,
/// score and device as the fake checks made them, the hung check's child
/// gone, Gradescope and PrairieLearn files for every row, and the summary.
fn assert_every_verdict(results: &Path, room: &Path) {
    let (header, rows) = gradebook(results);
    assert_eq!(header, ktrav_grade::gradebook::COLUMNS);
    assert_eq!(rows.len(), 10);
    let (outcome, device, share, failures) = (
        column(&header, "outcome"),
        column(&header, "device"),
        column(&header, "share_of_copy"),
        column(&header, "failures"),
    );
    let of = |name: &str| rows.iter().find(|r| r[0] == name).unwrap_or_else(|| panic!("no row {name}"));
    assert_eq!(of("alice/transpose")[outcome], "pass");
    assert_eq!(of("alice/transpose")[share], "0.800");
    assert_eq!(of("judy/copy")[share], "", "an untimed pass has no share");
    assert_eq!(of("bob/transpose")[failures], "wrong");
    assert_eq!(of("dave/transpose")[outcome], "timed out");
    // A checker that died (erin's) or printed no record (frank's) is the
    // grader's crash, named apart from a kernel that crashed (ivan's), whose
    // `crashed` is a failure kind of a failed check.
    assert_eq!(of("erin/transpose")[outcome], "checker crashed");
    assert_eq!(of("frank/transpose")[outcome], "checker crashed");
    assert_eq!((of("ivan/transpose")[outcome].as_str(), of("ivan/transpose")[failures].as_str()), ("fail", "crashed"));
    let (status, score) = (column(&header, "status"), column(&header, "score"));
    for (name, needs) in [
        ("dave/transpose", true),
        ("erin/transpose", true),
        ("frank/transpose", true),
        ("bob/transpose", false),
        ("grace/transpose", false),
    ] {
        assert_eq!(of(name)[status] == "needs regrade", needs, "{name}: {:?}", of(name));
        assert_eq!(
            of(name)[score].is_empty(),
            needs,
            "{name}: a grader failure has no score, a student's has one: {:?}",
            of(name)
        );
    }
    assert_eq!(
        (
            of("alice/transpose")[score].as_str(),
            of("bob/transpose")[score].as_str(),
            of("grace/transpose")[score].as_str()
        ),
        ("1", "0.67", "0")
    );
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
    assert!(summary.contains(" checker crashed |") && !summary.contains("| crashed |"), "{summary}");
    let erin = std::fs::read_to_string(results.join("gradescope/erin/transpose/results.json")).unwrap();
    let erin: serde_json::Value = serde_json::from_str(&erin).unwrap();
    assert_eq!(erin["extra_data"]["outcome"], "checker crashed");
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
        .args([
            "grade",
            room.to_str().unwrap(),
            "--exercise",
            "K.2:transpose",
            "--results",
            results.to_str().unwrap(),
            "--timeout",
            "120",
        ])
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
    let out = grade(
        &[room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap()],
        &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("2 submissions: 2 pass"), "{}", text(&out));
}

/// A checker stopped from outside (SIGTERM, as `scancel` or a Slurm time
/// limit sends it to every process of a task) stores no result: the row
/// says nothing was stored, and the next run checks it again.
#[test]
fn a_check_stopped_from_outside_is_no_result() {
    let d = tempfile::tempdir().unwrap();
    let room = d.path().join("room");
    std::fs::create_dir_all(&room).unwrap();
    std::fs::write(room.join("a.cu"), "// fake: pass\n").unwrap();
    std::fs::write(room.join("b.cu"), "// fake: terminated\n").unwrap();
    let results = d.path().join("results");
    let fake = fake_checker();
    let args = [room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap()];
    let out = grade(&args, &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())]);
    assert!(text(&out).contains("b: stopped from outside"), "{}", text(&out));
    let (header, rows) = gradebook(&results);
    let b = rows.iter().find(|r| r[0] == "b").expect("a row for b");
    assert_eq!(b[column(&header, "outcome")], "not checked", "{b:?}");
    assert!(!b.iter().any(|f| f.contains("SIGTERM")), "a stop from outside is not the submission's crash: {b:?}");
    assert_eq!(std::fs::read_dir(results.join("records")).unwrap().count(), 1, "only a's result is stored");
    std::fs::write(room.join("b.cu"), "// fake: pass\n// now it runs to its end\n").unwrap();
    let out = grade(&args, &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("2 submissions: 2 pass"), "{}", text(&out));
}

/// Everything in a student's file that the student sees: Gradescope's
/// `output` and every test but `extra_data` (tests `after_published` are
/// seen once the grades are published, so they count); all of
/// PrairieLearn's.
fn student_text(format: &str, doc: &serde_json::Value) -> String {
    let mut doc = doc.clone();
    if format == "gradescope" {
        doc.as_object_mut().unwrap().remove("extra_data");
    }
    doc.to_string()
}

/// A seeded room: every check runs `--private` and reads the seed from a
/// file only the grader can read; the seed is on no command line, not in
/// `plan.json`, and not in the checks' environment; no student-visible
/// field names a hidden shape, its size or how many there are, and none
/// says anything of the grading machine; until `--publish-hidden`.
#[test]
fn a_seeded_room_keeps_its_hidden_tests_hidden() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let room = d.path().join("room");
    for (name, mode) in [("alice", "pass"), ("bob", "hidden-only"), ("carol", "could-not-check"), ("dan", "wrong")] {
        std::fs::create_dir_all(room.join(name)).unwrap();
        std::fs::write(room.join(name).join("transpose.cu"), format!("// fake: {mode}\n// {name}\n")).unwrap();
    }
    let seed = "987654321";
    let fake = fake_checker();
    let argv = d.path().join("args.log");
    let env = [("KTRAV_GRADE_CHECKER", fake.to_str().unwrap()), ("KTRAV_FAKE_ARGS", argv.to_str().unwrap())];
    let run = |results: &Path, extra: &[&str], env: &[(&str, &str)]| {
        let mut args =
            vec![room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap()];
        args.extend(extra);
        grade(&args, env)
    };
    let results = d.path().join("results");
    let out = run(&results, &["--seed", seed], &env);
    assert_eq!(out.status.code(), Some(3), "carol could not be checked: {}", text(&out));
    // The checks' command lines and environments.
    let calls = std::fs::read_to_string(&argv).unwrap();
    assert_eq!(calls.lines().count(), 4, "{calls}");
    for call in calls.lines() {
        assert!(!call.contains(seed), "the seed is on a checker's command line: {call}");
        assert!(
            call.contains("--seed-file") && call.contains("--private") && call.ends_with("KTRAV_LAB_SEED=unset"),
            "{call}"
        );
    }
    assert!(!text(&out).contains(seed), "grade printed the seed: {}", text(&out));
    // On disk: the seed only in a file its owner alone may read.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&results.join("seed")), mode(&results)), (0o600, 0o700));
    assert!(!std::fs::read_to_string(results.join("plan.json")).unwrap().contains(seed));
    students_see_nothing_hidden(&results, seed);
    let (header, rows) = gradebook(&results);
    let carol = rows.iter().find(|r| r[0] == "carol/transpose").unwrap();
    assert_eq!(carol[column(&header, "status")], "needs regrade");
    assert!(carol[column(&header, "note")].contains("/srv/grader/lib64"), "{carol:?}");
    let alice = rows.iter().find(|r| r[0] == "alice/transpose").unwrap();
    assert_eq!(
        (alice[column(&header, "hidden_passed")].as_str(), alice[column(&header, "hidden_total")].as_str()),
        ("2", "2")
    );

    // Published, the hidden shapes are named and counted (by number only:
    // the checks were private, so their sizes are in no record).
    let published = d.path().join("published");
    let out = run(&published, &["--seed", seed, "--publish-hidden"], &env);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let bob = student_text("gradescope", &read_results(&published, "gradescope", "bob"));
    assert!(
        bob.contains("hidden shape 2") && bob.contains("1 of 2 hidden shapes pass") && !bob.contains("999"),
        "{bob}"
    );

    // The environment's seed is the seed when no --seed is given, and one
    // that disagrees with --seed is refused before any work.
    let from_env = d.path().join("from-env");
    let mut with_env = env.to_vec();
    with_env.push(("KTRAV_LAB_SEED", seed));
    let out = run(&from_env, &[], &with_env);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(from_env.join("seed")).unwrap().trim(), seed);
    let before = std::fs::read_to_string(&argv).unwrap().lines().count();
    let out = run(&d.path().join("refused"), &["--seed", "5"], &with_env);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1, "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&argv).unwrap().lines().count(), before, "a refused run checked something");
}

/// A submission's `results.json` in `format` under `results`.
fn read_results(results: &Path, format: &str, who: &str) -> serde_json::Value {
    serde_json::from_str(
        &std::fs::read_to_string(results.join(format).join(who).join("transpose/results.json")).unwrap(),
    )
    .unwrap()
}

/// What students see of the seeded room in `results`: no hidden shape, its
/// size or count, nor the seed or the grading machine, in any file; the
/// hidden battery as one test at most; Bob's half hidden point, and Carol
/// without a score.
fn students_see_nothing_hidden(results: &Path, seed: &str) {
    for who in ["alice", "bob", "carol", "dan"] {
        for format in ["gradescope", "prairielearn"] {
            let doc = read_results(results, format, who);
            let seen = student_text(format, &doc);
            for secret in
                ["123", "457", "999", seed, "hidden:", "hidden shape", "hidden shapes", "/srv/grader", "lib64"]
            {
                assert!(!seen.contains(secret), "{format} {who} shows '{secret}':\n{doc:#}");
            }
            let hidden_tests =
                doc["tests"].as_array().map_or(0, |t| t.iter().filter(|t| t.to_string().contains("hidden")).count());
            assert!(hidden_tests <= 1, "{format} {who}: the hidden battery is more than one test:\n{doc:#}");
        }
    }
    // Bob passes the public battery and fails one hidden shape: half his
    // hidden point, and the hidden test says only that not all pass.
    let bob = read_results(results, "gradescope", "bob");
    assert_eq!(bob["score"], serde_json::json!(1.5));
    assert!(bob.to_string().contains("Not every hidden test passes."), "{bob:#}");
    assert_eq!(read_results(results, "prairielearn", "bob")["score"], serde_json::json!(0.75));
    // Carol's check failed on the grader's side: no score anywhere, and the
    // path her checker printed only in the instructor's gradebook.
    assert!(read_results(results, "gradescope", "carol").get("score").is_none());
    assert_eq!(read_results(results, "prairielearn", "carol")["gradable"], serde_json::json!(false));
}

/// Results are reused only for the very same check: another checker build
/// or another option checks everything again, and `--regrade` checks again
/// what it names.
#[test]
fn a_new_checker_build_and_regrade_check_again() {
    let d = tempfile::tempdir().unwrap();
    let room = fake_room(d.path());
    let checker = d.path().join("checker");
    std::fs::copy(fake_checker(), &checker).unwrap();
    let log = d.path().join("checks.log");
    let results = d.path().join("results");
    let env = [("KTRAV_GRADE_CHECKER", checker.to_str().unwrap()), ("KTRAV_FAKE_LOG", log.to_str().unwrap())];
    let manifest = d.path().join("manifest.csv");
    let run = |extra: &[&str]| {
        let mut args = vec![
            room.to_str().unwrap(),
            "--manifest",
            manifest.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ];
        args.extend(extra);
        if !extra.contains(&"--timeout") {
            args.extend(["--timeout", "3"]);
        }
        let out = grade(&args, &env);
        assert!(matches!(out.status.code(), Some(0 | 3)), "{}", text(&out));
    };
    let checks = || std::fs::read_to_string(&log).map_or(0, |t| t.lines().count());
    run(&[]);
    assert_eq!(checks(), 10);
    run(&[]);
    assert_eq!(checks(), 10, "the same build and options checked again");
    // A fixed checker: the file is written anew.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let text_of = std::fs::read_to_string(&checker).unwrap();
    std::fs::write(&checker, format!("{text_of}\n# build 2\n")).unwrap();
    run(&[]);
    assert_eq!(checks(), 20, "a new checker build did not check again");
    run(&["--timeout", "4"]);
    assert_eq!(checks(), 30, "another --timeout did not check again");
    run(&["--timeout", "4", "--regrade=bob/transpose.cu"]);
    assert_eq!(checks(), 31);
    assert!(std::fs::read_to_string(&log).unwrap().lines().last().unwrap().ends_with("bob/transpose.cu"));
    // Every row that did not pass: all but alice's and judy's.
    run(&["--timeout", "4", "--regrade=failed"]);
    assert_eq!(checks(), 39);
    // The grader's failures: the hang, the crash and the garbage.
    run(&["--timeout", "4", "--regrade=could-not-check"]);
    assert_eq!(checks(), 42);
    run(&["--timeout", "4", "--regrade"]);
    assert_eq!(checks(), 52);
    let out = grade(
        &[
            room.to_str().unwrap(),
            "--manifest",
            manifest.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
            "--regrade=zed.cu",
        ],
        &env,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'zed.cu' is no submission"), "{}", text(&out));
}

/// A points file sets what each exercise is worth and the late policy;
/// identical submissions are flagged.
#[test]
fn a_points_file_scores_and_copies_are_flagged() {
    let d = tempfile::tempdir().unwrap();
    let room = d.path().join("room");
    std::fs::create_dir_all(&room).unwrap();
    let files = [
        ("alice.cu", "// fake: pass\n// alice's own\n__global__ void k(float* o) { o[0] = 1.0f; }\n"),
        ("bob.cu", "// fake: wrong\n__global__ void k(float* o) { o[1] = 1.0f; }\n"),
        ("carol.cu", "// fake: hidden-only\n__global__ void k(float* o) { o[2] = 1.0f; }\n"),
        // Alice's file with other comments and spacing.
        ("dave.cu", "// fake: pass\n\n   /* dave's, honestly */ __global__ void k(float *o)\n{\n    o[0] = 1.0f;\n}\n"),
        ("erin.cu", "// fake: pass\n__global__ void k(float* o) { o[3] = 1.0f; }\n"),
    ];
    for (f, text) in files {
        std::fs::write(room.join(f), text).unwrap();
    }
    let deadline = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_947_140);
    for (f, after) in
        [("alice.cu", -3600i64), ("bob.cu", -3600), ("carol.cu", -3600), ("dave.cu", -3600), ("erin.cu", 3600)]
    {
        let t = if after < 0 {
            deadline - std::time::Duration::from_secs(after.unsigned_abs())
        } else {
            deadline + std::time::Duration::from_secs(after as u64)
        };
        std::fs::File::options().write(true).open(room.join(f)).unwrap().set_modified(t).unwrap();
    }
    let points = d.path().join("grading.toml");
    std::fs::write(&points, "[exercise.\"K.2:transpose\"]\npublic = 6\nhidden = 4\nscoring = \"all-or-nothing\"\n\n[late]\ndeadline = \"2026-12-10T23:59:00Z\"\nper_day = 0.25\n").unwrap();
    let results = d.path().join("results");
    let fake = fake_checker();
    let args = [
        room.to_str().unwrap(),
        "--exercise",
        "K.2:transpose",
        "--results",
        results.to_str().unwrap(),
        "--points",
        points.to_str().unwrap(),
        "--seed",
        "3",
    ];
    let out = grade(&args, &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (header, rows) = gradebook(&results);
    let field = |who: &str, col: &str| rows.iter().find(|r| r[0] == who).unwrap()[column(&header, col)].clone();
    // All or nothing: bob fails a public and a hidden shape, carol only a hidden one.
    assert_eq!(["alice", "bob", "carol", "dave", "erin"].map(|w| field(w, "score")), ["10", "0", "6", "10", "7.5"]);
    assert!(rows.iter().all(|r| r[column(&header, "max_score")] == "10"));
    assert_eq!((field("erin", "days_late").as_str(), field("alice", "days_late").as_str()), ("1", "0"));
    let gs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("gradescope/erin/results.json")).unwrap()).unwrap();
    assert_eq!(gs["score"], serde_json::json!(7.5));
    let max: f64 = gs["tests"].as_array().unwrap().iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    assert_eq!(max, 10.0);
    let pl: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("prairielearn/carol/results.json")).unwrap())
            .unwrap();
    assert_eq!(pl["score"], serde_json::json!(0.6));
    assert_eq!(
        (
            field("alice", "identical_to").as_str(),
            field("dave", "identical_to").as_str(),
            field("bob", "identical_to").as_str()
        ),
        ("dave", "alice", "")
    );
    assert!(text(&out).contains("2 identical to another submission"), "{}", text(&out));
    // A points file that gives hidden points without a seed is refused.
    let out = grade(&args[..7], &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no --seed draws a hidden battery"), "{}", text(&out));
}

/// With a roster, rows are students: in each layout courses collect, the
/// latest file by the deadline (and the student's extension) is graded,
/// a late one marked, a student with no file listed as missing, and
/// canvas.csv written.
#[test]
fn a_roster_grades_students_in_every_layout() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("roster.csv"), "id,name,email,extension\nalice,Alice Ames,alice@uni,\nbob,Bob Burns,bob@uni,2\ncarol,Carol Cole,carol@uni,\ndave,Dave Dunn,dave@uni,\n").unwrap();
    std::fs::write(
        d.path().join("grading.toml"),
        "[default]\npublic = 10\n[late]\ndeadline = \"2026-12-10T23:59:00Z\"\nper_day = 0.5\n",
    )
    .unwrap();
    let deadline = 1_796_947_140u64;
    let at =
        |secs_after: i64| std::time::UNIX_EPOCH + std::time::Duration::from_secs((deadline as i64 + secs_after) as u64);
    // (file under each layout's room, mode, seconds after the deadline)
    let files = |alice: &str, bob: &str, carol: &str| {
        vec![
            (alice.replace("F", "old.cu"), "wrong", -7200),
            (alice.replace("F", "new.cu"), "pass", -3600),
            (alice.replace("F", "late.cu"), "wrong", 3600),
            (bob.replace("F", "t.cu"), "pass", 86_400),
            (carol.replace("F", "t.cu"), "pass", 3600),
            ("stranger/t.cu".to_string(), "pass", 0),
        ]
    };
    let layouts = [
        ("per-folder", files("alice/F", "bob/F", "carol/F")),
        ("classroom", files("transpose-alice/src/F", "transpose-bob/F", "transpose-carol/F")),
        ("canvas", files("amesalice_alice_101_F", "burnsbob_bob_102_F", "colecarol_LATE_carol_103_F")),
    ];
    let fake = fake_checker();
    for (layout, files) in layouts {
        let room = d.path().join(layout);
        for (i, (f, mode, after)) in files.iter().enumerate() {
            let p = room.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, format!("// fake: {mode}\n__global__ void k(float* o) {{ o[{i}] = 1.0f; }}\n")).unwrap();
            std::fs::File::options().write(true).open(&p).unwrap().set_modified(at(*after)).unwrap();
        }
        let results = d.path().join(format!("{layout}-results"));
        let out = grade(
            &[
                room.to_str().unwrap(),
                "--exercise",
                "K.2:transpose",
                "--results",
                results.to_str().unwrap(),
                "--roster",
                d.path().join("roster.csv").to_str().unwrap(),
                "--points",
                d.path().join("grading.toml").to_str().unwrap(),
            ],
            &[("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())],
        );
        assert_eq!(out.status.code(), Some(0), "{layout}: {}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("1 file(s) belong to no student of the roster and are not graded: stranger/t.cu"),
            "{layout}: {}",
            text(&out)
        );
        assert_roster_gradebook(layout, &results);
    }
}

/// The gradebook and canvas.csv of the roster's room in `layout`: one row
/// per student, Alice's newest file by the deadline, Bob inside his
/// extension, Carol late, Dave missing.
fn assert_roster_gradebook(layout: &str, results: &Path) {
    let (header, rows) = gradebook(results);
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["alice", "bob", "carol", "dave"], "{layout}: one row per student");
    let field = |who: &str, col: &str| rows.iter().find(|r| r[0] == who).unwrap()[column(&header, col)].clone();
    // Alice: her newest file by the deadline, not the later one.
    assert_eq!(
        (field("alice", "outcome").as_str(), field("alice", "score").as_str(), field("alice", "days_late").as_str()),
        ("pass", "10", "0"),
        "{layout}"
    );
    // Bob: a day late, inside his two days' extension.
    assert_eq!((field("bob", "score").as_str(), field("bob", "days_late").as_str()), ("10", "0"), "{layout}");
    // Carol: late by an hour, half off.
    assert_eq!((field("carol", "score").as_str(), field("carol", "days_late").as_str()), ("5", "1"), "{layout}");
    assert_eq!((field("dave", "outcome").as_str(), field("dave", "score").as_str()), ("missing", "0"), "{layout}");
    assert!(results.join("gradescope/alice/results.json").is_file() && !results.join("gradescope/dave").exists());
    let canvas = std::fs::read_to_string(results.join("canvas.csv")).unwrap();
    let lines: Vec<&str> = canvas.lines().collect();
    assert_eq!(lines[0], "Student,ID,SIS User ID,SIS Login ID,Section,K.2:transpose", "{layout}");
    assert_eq!(lines[1], "Points Possible,,,,,10");
    assert!(
        lines.contains(&"Carol Cole,,carol,carol@uni,,5") && lines.contains(&"Dave Dunn,,dave,dave@uni,,0"),
        "{layout}:\n{canvas}"
    );
}

/// The chapter binaries `grade` runs by default, built beside this one.
fn chapters_built() -> PathBuf {
    let dir = Path::new(BIN).parent().unwrap().to_path_buf();
    for ch in ["k2_transpose", "k3_grid_mapping", "k4_boundary_check"] {
        assert!(
            dir.join(ch).is_file(),
            "{} is not built: run cargo test at the workspace root (or cargo build -p {ch})",
            dir.join(ch).display()
        );
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
    let out =
        grade(&[room.to_str().unwrap(), "--exercise", "K.2:transpose", "--results", results.to_str().unwrap()], &[]);
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

/// `appendix_k expect-columns`, with which `scripts/make-room` reads the
/// exercise files' `// expect:` lines, knows every kind of failure a check
/// reports, on its own and as the hidden battery's, and refuses a verdict
/// it does not know in one line, with exit code 2 and no row printed.
#[test]
fn expect_columns_knows_every_kind_and_refuses_an_unknown_verdict() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("k.cu");
    let hidden = ktrav::lab::expect::HIDDEN_ONLY;
    let lines: String =
        FailureKind::ALL.iter().map(|k| format!("// expect: copy: {k}\n// expect: add: {hidden} as {k}\n")).collect();
    std::fs::write(&file, lines).unwrap();
    let out = Command::new(BIN).arg("expect-columns").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let f = file.display();
    let rows: String = FailureKind::ALL.iter().map(|k| format!("{f},copy,{k},,,\n{f},add,pass,,{k},\n")).collect();
    assert_eq!(String::from_utf8_lossy(&out.stdout), rows);
    let bad = d.path().join("bad.cu");
    std::fs::write(&bad, "// expect: copy: wrong\n// expect: copy: excellent\n").unwrap();
    let file = file.to_str().unwrap();
    assert_usage_errors(BIN, &[&["expect-columns"], &["expect-columns", file, bad.to_str().unwrap()]]);
}

/// `scripts/make-room DIR`, with this build's `appendix_k` to read the
/// exercise files' `// expect:` lines and list the exercises.
fn make_room(dir: &Path) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new("bash").arg(root.join("scripts/make-room")).arg(dir).env("APPENDIX_K", BIN).output().unwrap()
}

/// `scripts/make-room` assembles a room of at least 40 submissions from
/// `exercises/` and `kernels/`, with a manifest naming each one's exercise
/// and verdict, which `grade` reads without complaint.
#[test]
fn make_room_writes_a_well_formed_room() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = tempfile::tempdir().unwrap();
    let room = d.path().join("room");
    let out = make_room(&room);
    assert!(out.status.success(), "{}", text(&out));
    let manifest = room.join("manifest.csv");
    let catalogue: Vec<ktrav_grade::exercise::ExerciseRef> = appendix_k::CHAPTERS
        .iter()
        .flat_map(|ch| ch.exercises.iter().map(|e| ktrav_grade::exercise::ExerciseRef::new(ch.section, ch.id, e.id)))
        .collect();
    let rows = ktrav_grade::plan::read_manifest(&manifest, &room, &catalogue).unwrap_or_else(|e| panic!("{e}"));
    assert!(rows.len() >= 40, "{} submissions", rows.len());
    let page =
        std::fs::read_to_string(root.join("book/lab.md")).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        page.contains(&format!("a room of {} submissions", rows.len())),
        "book/lab.md does not give the room's size, {}",
        rows.len()
    );
    let files: Vec<PathBuf> = ktrav_grade::plan::discover(&room, None).unwrap().files;
    assert_eq!(files.len(), rows.len(), "every .cu file in the room is in the manifest, once");
    let expects: Vec<String> =
        rows.iter().map(|r| r.2.public.expect("every row names its verdict").to_string()).collect();
    for verdict in [
        "pass",
        "wrong",
        "unwritten",
        "out of bounds",
        "launch error",
        "crashed",
        "did not finish",
        "compile error",
        "no kernel",
    ] {
        assert!(expects.iter().any(|e| e == verdict), "no submission expects {verdict}");
    }
    for e in &catalogue {
        assert!(
            rows.iter().any(|r| r.1 == *e && r.2.public == Some(Expectation::Pass)),
            "no passing submission of {e}"
        );
    }
    // Every exercise's solution, and nothing else, under solutions/.
    let mut solutions: Vec<String> = std::fs::read_dir(room.join("solutions"))
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    solutions.sort();
    let mut wanted: Vec<String> =
        appendix_k::CHAPTERS.iter().flat_map(|ch| ch.exercises.iter().map(|e| format!("{}.cu", e.id))).collect();
    wanted.sort();
    assert_eq!(solutions, wanted);
    hidden_only_kernels_as_expected(&rows);
    synthetic_kernels_and_fixes_as_expected(&room, &rows);
    // The same folder made twice is the same folder.
    let again = d.path().join("again");
    assert!(make_room(&again).status.success());
    assert_eq!(
        std::fs::read_to_string(&manifest).unwrap(),
        std::fs::read_to_string(again.join("manifest.csv")).unwrap()
    );
    // A room that is there already is not overwritten.
    let out = make_room(&room);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// The kernels only the hidden battery rejects pass the public one and
/// carry what the hidden one must say: the uint32 index only with --large.
fn hidden_only_kernels_as_expected(rows: &[ktrav_grade::plan::Entry]) {
    let hidden_of = |stem: &str| {
        rows.iter()
            .find(|r| r.0.to_string_lossy().ends_with(stem))
            .map(|r| r.2.clone())
            .unwrap_or_else(|| panic!("no {stem} in the room"))
    };
    let stale = hidden_of("stale_whole_tile.cu");
    assert_eq!((stale.public, stale.hidden), (Some(Expectation::Pass), Some(Expectation::Fail)));
    let short = hidden_of("short_row_index.cu");
    assert_eq!(
        (short.public, short.hidden),
        (Some(Expectation::Pass), Some(Expectation::Kind(FailureKind::Unwritten)))
    );
    let uint32 = hidden_of("uint32_index.cu");
    assert_eq!(
        (uint32.public, uint32.hidden, uint32.hidden_large),
        (Some(Expectation::Pass), None, Some(Expectation::Fail))
    );
}

/// The synthetic kernels say what they are, and every find-the-bug
/// exercise has its starter in the room, expected to fail, and the starter
/// fixed, expected to pass; the fixes carry no expect line of their own.
fn synthetic_kernels_and_fixes_as_expected(room: &Path, rows: &[ktrav_grade::plan::Entry]) {
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
            let of = |folder: &str, verdict: &dyn Fn(Expectation) -> bool| {
                rows.iter().any(|r| {
                    r.1 == e && r.0.strip_prefix(room).unwrap().starts_with(folder) && r.2.public.is_some_and(verdict)
                })
            };
            assert!(
                of("exercises", &|v| v != Expectation::Pass),
                "the find-the-bug starter of {e} is not in the room, failing"
            );
            assert!(of("fixes", &|v| v == Expectation::Pass), "no fixed find-the-bug starter of {e}");
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
}

/// `--slurm --dry-run` writes the round's job scripts and what they read,
/// says how to submit them, and submits nothing.
#[test]
fn a_dry_run_writes_the_slurm_scripts_and_submits_nothing() {
    let d = tempfile::tempdir().unwrap();
    let room = fake_room(d.path());
    let results = d.path().join("results");
    let fake = fake_checker();
    let out = grade(
        &[
            room.to_str().unwrap(),
            "--exercise",
            "K.2:transpose",
            "--results",
            results.to_str().unwrap(),
            "--slurm",
            "--dry-run",
            "--partition",
            "gpu",
            "--collect-partition",
            "cpu",
            "--max-parallel",
            "4",
            "--timeout",
            "120",
            "--seed",
            "31337",
        ],
        &[("PATH", "/nonexistent"), ("KTRAV_GRADE_CHECKER", fake.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    let (array, collect) = (results.join("slurm/round-1.sbatch"), results.join("slurm/collect-1.sbatch"));
    assert!(said.contains(&format!("job=$(sbatch --parsable '{}')", array.display())), "{said}");
    assert!(said.contains(&format!("sbatch --dependency=afterany:$job '{}'", collect.display())), "{said}");
    let script = std::fs::read_to_string(&array).unwrap();
    // K.2's transpose with a seed: a hidden shape reaches 2^28 floats in and
    // out, 1 GiB a buffer, which the task's memory and CPUs are sized from.
    let transpose = appendix_k::CHAPTERS.iter().flat_map(|c| c.exercises).find(|e| e.id == "transpose").unwrap();
    let bytes = ktrav::lab::largest_bytes(transpose, true, false);
    assert!(bytes >= 2 << 30, "{bytes}");
    let (mem, cpus) = ktrav_grade::slurm::resources(bytes);
    assert!(mem > 3 * 1024 && cpus == 4, "{mem} MiB, {cpus} CPUs");
    let (mem, cpus) = (format!("#SBATCH --mem={mem}M"), format!("#SBATCH --cpus-per-task={cpus}"));
    for line in [
        "#SBATCH --array=0-9%4",
        "#SBATCH --gres=gpu:1",
        "#SBATCH --partition=gpu",
        "#SBATCH --time=4",
        &mem,
        &cpus,
        "unset KTRAV_LAB_SEED",
    ] {
        assert!(script.lines().any(|l| l == line), "no {line} in:\n{script}");
    }
    let exe = std::fs::canonicalize(BIN).unwrap();
    assert!(
        script.contains(&format!(
            "exec '{}' grade --task \"$SLURM_ARRAY_TASK_ID\" --round 1 --results '{}'",
            exe.display(),
            results.display()
        )),
        "{script}"
    );
    let collect = std::fs::read_to_string(&collect).unwrap();
    assert!(
        collect.contains(&format!("exec '{}' grade --collect '{}'", exe.display(), results.display())),
        "{collect}"
    );
    assert!(collect.lines().any(|l| l == "#SBATCH --partition=cpu"), "{collect}");
    // What a task reads is there; no result, no gradebook.
    for f in ["plan.json", "seed", "slurm/round-1.json"] {
        assert!(results.join(f).is_file(), "a dry run did not write {f}");
    }
    assert!(!results.join("records").exists() && !results.join("grades.csv").exists());
    assert!(!std::fs::read_to_string(results.join("plan.json")).unwrap().contains("31337"), "plan.json holds the seed");
    assert!(!script.contains("31337") && !said.contains("31337"), "the script names the seed");
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
    for e in Expectation::all() {
        assert!(page.contains(&format!("`{e}`")), "book/lab.md does not say what --expect makes of {e}");
    }
}
