//! The binary: the worked example by default, custom shapes on request,
//! and one line on stderr with exit code 2 for anything it cannot run.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_k2_transpose")).args(args).env("NO_COLOR", "1").env("KTRAV_NO_GPU", "1").output().unwrap()
}

#[test]
fn default_prints_the_worked_example() {
    let out = run(&[]);
    assert!(out.status.success());
    let expect = format!(
        "{}\nGPU section skipped: KTRAV_NO_GPU is set.\n",
        ktrav::report::plain(&k2_transpose::worked_example())
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expect);
}

#[test]
fn custom_shape_runs() {
    let out = run(&["--rows", "33", "--cols", "65", "--tile", "16"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("33x65 matrix, tile_width=16, grid=5x3 blocks, boundary tiles: yes"), "{text}");
    assert!(text.contains("element for element: true"));
}

#[test]
fn bad_values_fail_in_one_line() {
    for args in [
        &["--rows", "0"][..],
        &["--cols", "-4"],
        &["--rows", "abc"],
        &["--tile", "33"],
        &["--tile", "99999999999999999999"],
        &["--rows", "8192", "--cols", "8192"],
        &["--rows", "3000000", "--tile", "1"],
        &["--nonsense"],
    ] {
        let out = run(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
