//! The binary: the worked example by default, custom launches on request,
//! and one line on stderr with exit code 2 for anything it cannot run.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_k3_grid_mapping")).args(args).env("NO_COLOR", "1").env("KTRAV_NO_GPU", "1").output().unwrap()
}

#[test]
fn default_prints_the_worked_example() {
    let out = run(&[]);
    assert!(out.status.success());
    let expect = format!(
        "{}\nGPU section skipped: KTRAV_NO_GPU is set.\n",
        ktrav::report::plain(&k3_grid_mapping::worked_example())
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expect);
}

#[test]
fn custom_launch_runs() {
    let out = run(&["--rows", "37", "--cols", "61", "--block-x", "16", "--block-y", "16"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("wasted (guarded) threads: 3 along x, 11 along y, 815 in total"), "{text}");
    assert!(text.contains("x -> row: grid = 3 x 4 blocks"), "{text}");
}

#[test]
fn bad_values_fail_in_one_line() {
    for args in [
        &["--rows", "0"][..],
        &["--cols", "-1"],
        &["--block-x", "x"],
        &["--block-x", "64", "--block-y", "32"],
        &["--rows", "70000", "--block-y", "1"],
        &["--rows", "100000", "--cols", "100000"],
        &["--cols", "1e6"],
        &["--nonsense"],
    ] {
        let out = run(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
