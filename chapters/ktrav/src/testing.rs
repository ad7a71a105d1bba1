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

/// Asserts that every argument list is refused with exit code 2, a single
/// `error: ...` line on stderr and nothing on stdout.
pub fn assert_usage_errors(path: &str, cases: &[&[&str]]) {
    for args in cases {
        let out = run_binary(path, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    }
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
