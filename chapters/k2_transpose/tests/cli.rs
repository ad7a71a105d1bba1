//! The binary: the worked example by default, custom shapes on request,
//! and one line on stderr with exit code 2 for anything it cannot run.

use ktrav::testing::{assert_default_run, assert_usage_errors, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k2_transpose");

#[test]
fn default_prints_the_worked_example() {
    assert_default_run(BIN, &[k2_transpose::worked_example()]);
}

#[test]
fn custom_shape_runs() {
    let text = stdout_of(BIN, &["--rows", "33", "--cols", "65", "--tile", "16"]);
    assert!(text.contains("33x65 matrix, tile_width=16, grid=5x3 blocks, boundary tiles: yes"), "{text}");
    assert!(text.contains("element for element: true"));
}

#[test]
fn bad_values_fail_in_one_line() {
    assert_usage_errors(
        BIN,
        &[
            &["--rows", "0"][..],
            &["--cols", "-4"],
            &["--rows", "abc"],
            &["--tile", "33"],
            &["--tile", "99999999999999999999"],
            &["--rows", "8192", "--cols", "8192"],
            &["--rows", "3000000", "--tile", "1"],
            &["--nonsense"],
        ],
    );
}
