//! The binary: the worked example and what the book adds to it by default,
//! a custom shape on request, and one line on stderr with exit code 2 for
//! anything it cannot run.

use ktrav::testing::{assert_default_run, assert_usage_errors, run_binary, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k6_spiral");

#[test]
fn default_prints_the_worked_example_then_the_gpu_line() {
    assert_default_run(BIN, &[k6_spiral::worked_example(), k6_spiral::beyond_the_source()]);
}

#[test]
fn custom_shape_runs() {
    let text = stdout_of(BIN, &["--rows", "5", "--cols", "8", "--block-x", "3", "--block-y", "2"]);
    assert!(text.starts_with("5x8 matrix, 3x2 blocks, grid 3x3 (54 threads for 40 elements)"), "{text}");
    assert!(text.contains("spiral_gather (shuffled blocks): output equals the walk's reference: true"), "{text}");
    assert!(text.contains("  20 35 36 37 38 39 28  9"), "{text}");
    assert!(!text.contains("GPU"), "a custom run has no GPU section: {text}");
}

#[test]
fn bad_values_fail_in_one_line() {
    assert_usage_errors(
        BIN,
        &[
            &["--rows", "0"][..],
            &["--rows", "-3"],
            &["--cols", "x"],
            &["--rows", "4", "--cols", "4", "--block-x", "64", "--block-y", "32"],
            &["--rows", "16000000", "--cols", "1", "--block-y", "1"],
            &["--rows", "5000", "--cols", "5000"],
            &["--block-x", "2000"],
            &["--nonsense"],
        ],
    );
}

#[test]
fn a_negative_size_is_called_not_positive() {
    let err = String::from_utf8(run_binary(BIN, &["--rows", "-3"]).stderr).unwrap();
    assert!(err.contains("-3 is not positive"), "{err}");
}
