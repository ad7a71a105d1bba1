//! The binary: the worked example and what the book adds to it by default,
//! a custom table on request, and one line on stderr with exit code 2 for
//! anything it cannot run.

use ktrav::testing::{assert_default_run, assert_usage_errors, run_binary, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k7_diagonal");

#[test]
fn default_prints_the_worked_example_then_the_gpu_line() {
    let parts = [
        k7_diagonal::worked_example(),
        k7_diagonal::exactness_report(),
        k7_diagonal::single_launch_report(),
        k7_diagonal::tiled_report(),
    ];
    assert_default_run(BIN, &parts);
}

#[test]
fn custom_table_runs() {
    let text = stdout_of(BIN, &["--rows", "37", "--cols", "53", "--block-x", "8", "--tile", "8", "--seed", "3"]);
    assert!(text.starts_with("37x53 table, 89 diagonals\n"), "{text}");
    assert!(text.contains("lattice_wavefront, block_dim_x=8, 89 launches: matches the scalar DP: true"), "{text}");
    assert!(text.contains("lattice_tiled, 8x8 tiles, 11 launches: matches the scalar DP: true"), "{text}");
    assert!(text.contains("paths to the far corner (mod 2^61-1): 2117105805114612737, binomial check: true"), "{text}");
    assert!(!text.contains("GPU"), "a custom run has no GPU section: {text}");
}

#[test]
fn bad_values_fail_in_one_line() {
    assert_usage_errors(
        BIN,
        &[
            &["--rows", "0"][..],
            &["--cols", "-3"],
            &["--rows", "x"],
            &["--rows", "10", "--cols", "10", "--tile", "33"],
            &["--rows", "4", "--block-x", "2000"],
            &["--rows", "3000", "--cols", "3000"],
            &["--seed", "-1"],
            &["--nonsense"],
        ],
    );
}

#[test]
fn a_negative_size_is_called_not_positive() {
    let err = String::from_utf8(run_binary(BIN, &["--cols", "-3"]).stderr).unwrap();
    assert!(err.contains("-3 is not positive"), "{err}");
}
