//! `ktrav_testing` holds the checks every chapter binary's command-line
//! tests share: run a chapter binary the way a reader would, and check the
//! promises every binary makes, about bad input (one line on stderr, exit
//! code 2, nothing on stdout), a closed pipe, `check` and `sim-check`
//! without a GPU. Only tests depend on it.

use std::process::{Command, Output};

/// Runs a chapter binary with `NO_COLOR` and `KTRAV_NO_GPU` set, so its
/// output is plain and the same on machines with and without a GPU.
pub fn run_binary(path: &str, args: &[&str]) -> Output {
    Command::new(path)
        .args(args)
        .env("NO_COLOR", "1")
        .env(ktrav::section::DISABLE_ENV, "1")
        .env_remove(ktrav::lab::SEED_ENV)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {path}: {e}"))
}

/// The binary's stdout for `args`, asserting that it succeeded.
pub fn stdout_of(path: &str, args: &[&str]) -> String {
    let out = run_binary(path, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// How long a refusal may take: bad input is refused before any work.
pub const REFUSAL_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Asserts that every argument list is refused quickly (within
/// [`REFUSAL_LIMIT`]) with exit code 2, a single `error: ...` line on
/// stderr, nothing on stdout, and no panic or abort. A refusal that took
/// longer is timed once more and the faster run counts: the first start
/// of a freshly linked binary on a busy machine can stall for seconds,
/// while work done before refusing would be slow both times.
pub fn assert_usage_errors(path: &str, cases: &[&[&str]]) {
    let timed = |args: &[&str]| {
        let started = std::time::Instant::now();
        let out = run_binary(path, args);
        (out, started.elapsed())
    };
    for args in cases {
        let (out, mut took) = timed(args);
        if took >= REFUSAL_LIMIT {
            took = took.min(timed(args).1);
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
        assert!(took < REFUSAL_LIMIT, "{args:?} took {took:?} to be refused");
    }
}

/// Asserts that the binary stops quietly (exit 0, nothing on stderr) when
/// its reader has gone away, as in `chapter | head -1`: the pipe is closed
/// before the binary writes anything, so its first write fails.
pub fn assert_quiet_on_closed_pipe(path: &str, args: &[&str]) {
    use std::process::Stdio;
    let mut child = Command::new(path)
        .args(args)
        .env("NO_COLOR", "1")
        .env(ktrav::section::DISABLE_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {path}: {e}"));
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("the binary ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{path} with its reader gone: {err}");
    assert!(err.is_empty(), "{path} with its reader gone wrote to stderr: {err}");
}

/// The line every chapter with kernels prints when `KTRAV_NO_GPU` is set.
pub fn no_gpu_line() -> String {
    format!("GPU section skipped: {} is set.\n", ktrav::section::DISABLE_ENV)
}

/// Asserts what `--gpu` at a reader's shape does on a machine without a GPU:
/// `args` (a shape and `--gpu`) print the one line saying the GPU section
/// was skipped and nothing else, exit 0; every case of `refused` is refused
/// in one line naming the problem (its second item) before any GPU is
/// probed, as [`assert_usage_errors`] checks.
pub fn assert_gpu_at_shape(path: &str, args: &[&str], refused: &[(&[&str], &str)]) {
    assert_eq!(stdout_of(path, args), no_gpu_line(), "{args:?}");
    let cases: Vec<&[&str]> = refused.iter().map(|(args, _)| *args).collect();
    assert_usage_errors(path, &cases);
    for (args, says) in refused {
        let err = String::from_utf8(run_binary(path, args).stderr).expect("stderr is UTF-8");
        assert!(err.contains(says), "{args:?} should say {says:?}: {err}");
    }
}

/// Asserts what a chapter binary with kernels prints when run with no
/// arguments on a machine without a GPU: its report `parts` (plain text,
/// separated by one blank line), then the one line saying the GPU section
/// was skipped.
pub fn assert_default_run(path: &str, parts: &[String]) {
    let plain: Vec<String> = parts.iter().map(|p| ktrav_term::report::plain(p)).collect();
    let expect = format!("{}\n{}", plain.join("\n"), no_gpu_line());
    let printed = stdout_of(path, &[]);
    if let Some(diff) = ktrav_book::first_difference(&expect, &printed) {
        panic!("{path} printed something else by default: {diff}");
    }
}

/// Asserts that `sim-check` refuses bad input in one line with exit code
/// 2 before any work ([`assert_usage_errors`]): an exercise the chapter
/// does not have, an extra argument, an unknown flag, and `sim-check`
/// mixed with the chapter's own flags. The refusal names the exercises the
/// chapter has.
pub fn assert_sim_check_usage_errors(path: &str, chapter: &ktrav::Chapter) {
    let first = chapter.sim_exercises.first().expect("the chapter has an exercise on the simulator track").id;
    assert_usage_errors(
        path,
        &[
            &["sim-check", "no-such-exercise"],
            &["sim-check", first, "extra"],
            &["sim-check", first, "--bogus"],
            &["--rows", "4", "sim-check", first],
        ],
    );
    let err = String::from_utf8(run_binary(path, &["sim-check", "no-such-exercise"]).stderr).expect("stderr is UTF-8");
    for ex in chapter.sim_exercises {
        assert!(err.contains(ex.id), "the refusal should name '{}': {err}", ex.id);
    }
}

/// The workspace root.
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The starter of `ex`, one of `chapter`'s exercises: its file in the
/// chapter's `exercises/<chapter>/`.
pub fn starter_path(chapter: &ktrav::Chapter, ex: &ktrav::Exercise) -> std::path::PathBuf {
    workspace_root().join("exercises").join(chapter.id).join(ex.starter)
}

/// Asserts that a chapter binary's `check` refuses bad input the way every
/// flag does (one line, exit 2, before any work): no file, a missing file,
/// a directory, a binary file, an unknown exercise, a zero timeout, a
/// sanitizer tool that does not exist or is named twice, `--private`
/// without a seed, a seed that is no number, `check` mixed with
/// the chapter's own flags.
pub fn assert_check_usage_errors(path: &str, chapter: &ktrav::Chapter) {
    let ex = chapter.exercises.first().unwrap_or_else(|| panic!("{} has no exercise", chapter.id));
    let starter = starter_path(chapter, ex).to_string_lossy().into_owned();
    let binary = std::env::temp_dir().join(format!("ktrav-binary-{}-{}.cu", chapter.id, std::process::id()));
    std::fs::write(&binary, [0x7f, b'E', b'L', b'F', 0, 0, 1, 2, 0xff, 0xfe]).expect("a temporary file");
    let binary = binary.to_string_lossy().into_owned();
    let root = workspace_root().to_string_lossy().into_owned();
    assert_usage_errors(
        path,
        &[
            &["check"][..],
            &["check", "--json"],
            &["check", "--large", "--json"],
            &["check", "/no/such/kernel.cu"],
            &["check", "/no/such/kernel.cu", "--json"],
            &["check", &root],
            &["check", &binary],
            &["check", &binary, "--json"],
            &["check", &starter, "--exercise", "no-such-exercise"],
            &["check", &starter, "--timeout", "0"],
            &["check", &starter, "--timeout", "-5"],
            &["check", &starter, "--bogus"],
            &["check", &starter, "extra.cu"],
            &["check", &starter, "--sanitize=bogus"],
            &["check", &starter, "--sanitize=memcheck,memcheck"],
            &["check", &starter, "--sanitize="],
            &["check", &starter, "--sanitize", "memcheck"],
            &["check", &starter, "--private"],
            &["check", &starter, "--seed", "abc"],
            &["check", &starter, "--seed", "-1"],
            &["check", &starter, "--seed"],
            // The worker a check starts for each shape, given no job it can read.
            &["check-worker", "/no/such/job.json"],
            &["check-worker", &root],
        ],
    );
    // A malformed seed in the instructor's variable is bad input too.
    let out = Command::new(path)
        .args(["check", &starter])
        .env(ktrav::section::DISABLE_ENV, "1")
        .env(ktrav::lab::SEED_ENV, "twelve")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with(&format!("error: {}", ktrav::lab::SEED_ENV)) && err.lines().count() == 1, "{err}");
    let help = run_binary(path, &["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("check") && !help.contains("check-worker"), "the worker subcommand is not hidden:\n{help}");
    let _ = std::fs::remove_file(&binary);
    let out = run_binary(path, &["check"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<FILE>"), "a missing file is not named: {err}");
}

/// Asserts what `check` of each of the chapter's starters, against its
/// exercise, does without a GPU (`KTRAV_NO_GPU` is set): exit
/// [`ktrav::lab::COULD_NOT_CHECK`] and one `could not check: ...` line in
/// the report, nothing on stderr, with or without NVRTC on the machine;
/// with `--json`, one record saying the same, for that exercise, and the
/// line once on stderr. Without `--exercise`, the check is
/// of the chapter's first exercise.
pub fn assert_check_could_not_check(path: &str, chapter: &ktrav::Chapter) {
    assert!(!chapter.exercises.is_empty(), "{} has no exercise", chapter.id);
    for (n, ex) in chapter.exercises.iter().enumerate() {
        let starter = starter_path(chapter, ex).to_string_lossy().into_owned();
        let mut args = vec!["check", starter.as_str(), "--exercise", ex.id];
        if n == 0 {
            args.truncate(2);
        }
        let out = run_binary(path, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(ktrav::lab::COULD_NOT_CHECK), "{args:?}: {err}");
        assert!(err.trim().is_empty(), "{args:?}: the reason is printed twice, on stderr too: {err}");
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(printed.matches("could not check: ").count(), 1, "{printed}");
        assert!(printed.contains(&format!("exercise '{}' ({})", ex.id, ex.kernel)), "{printed}");
        assert!(!printed.contains("result: "), "a check without a GPU claimed a result: {printed}");
        args.push("--json");
        let out = run_binary(path, &args);
        assert_eq!(out.status.code(), Some(ktrav::lab::COULD_NOT_CHECK), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: could not check: ") && err.lines().count() == 1, "{args:?}: {err}");
        let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints one JSON record");
        assert_eq!(record["outcome"], "could not check", "{record}");
        assert_eq!((&record["exercise"], &record["section"]), (&ex.id.into(), &chapter.section.into()), "{record}");
        assert_eq!(record["exit_code"], ktrav::lab::COULD_NOT_CHECK);
        assert_eq!(record["shapes"].as_array().map(Vec::len), Some(0), "{record}");
    }
}
