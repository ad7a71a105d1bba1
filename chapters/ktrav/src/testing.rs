//! Helpers for the chapters' command-line tests: run a chapter binary the
//! way a reader would, and check the promise every binary makes about bad
//! input (one line on stderr, exit code 2, nothing on stdout).

use std::process::{Command, Output};

/// Runs a chapter binary with `NO_COLOR` and `KTRAV_NO_GPU` set, so its
/// output is plain and the same on machines with and without a GPU.
pub fn run_binary(path: &str, args: &[&str]) -> Output {
    Command::new(path)
        .args(args)
        .env("NO_COLOR", "1")
        .env(crate::gpu::DISABLE_ENV, "1")
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
/// stderr, nothing on stdout, and no panic or abort.
pub fn assert_usage_errors(path: &str, cases: &[&[&str]]) {
    for args in cases {
        let started = std::time::Instant::now();
        let out = run_binary(path, args);
        let took = started.elapsed();
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
        .env(crate::gpu::DISABLE_ENV, "1")
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
    format!("GPU section skipped: {} is set.\n", crate::gpu::DISABLE_ENV)
}

/// Asserts what a chapter binary with kernels prints when run with no
/// arguments on a machine without a GPU: its report `parts` (plain text,
/// separated by one blank line), then the one line saying the GPU section
/// was skipped.
pub fn assert_default_run(path: &str, parts: &[String]) {
    let plain: Vec<String> = parts.iter().map(|p| crate::report::plain(p)).collect();
    let expect = format!("{}\n{}", plain.join("\n"), no_gpu_line());
    let printed = stdout_of(path, &[]);
    if let Some(diff) = crate::book::first_difference(&expect, &printed) {
        panic!("{path} printed something else by default: {diff}");
    }
}
