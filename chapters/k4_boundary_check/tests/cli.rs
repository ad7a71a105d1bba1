//! The binary: every shown output by default (then the GPU section, or the
//! line saying it was skipped), custom launches on request, and one line on
//! stderr with exit code 2 for anything it cannot run.

use ktrav::testing::{assert_default_run, assert_usage_errors, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k4_boundary_check");

#[test]
fn default_prints_every_shown_output() {
    let shown: Vec<String> = k4_boundary_check::shown_outputs().into_iter().map(|(_, text)| text).collect();
    assert_default_run(BIN, &shown);
}

#[test]
fn custom_launch_runs() {
    let text = stdout_of(BIN, &["--rows", "6", "--cols", "13", "--block-x", "8", "--block-y", "2", "--shuffles", "20"]);
    assert!(text.contains("matrix 6x13, blocks of 8x2, grid 2x3: 3 columns past the last real column in every row"), "{text}");
    assert!(text.contains("both axes checked: every cell right: true"), "{text}");
    assert!(text.contains("20 seeded shuffles of all 6 blocks, seeds from 0:"), "{text}");
    // A custom run is simulation only: no GPU section, not even the skip line.
    assert!(!text.contains("GPU section"), "{text}");
}

#[test]
fn bad_values_fail_in_one_line() {
    assert_usage_errors(
        BIN,
        &[
            &["--rows", "0"][..],
            &["--cols", "-3"],
            &["--cols", "1000"],
            &["--block-x", "x"],
            &["--block-x", "64", "--block-y", "32"],
            &["--shuffles", "100001"],
            &["--rows", "4096", "--cols", "999", "--block-x", "32", "--shuffles", "100000"],
            &["--nonsense"],
        ],
    );
}
