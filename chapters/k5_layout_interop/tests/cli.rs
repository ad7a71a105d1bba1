//! The binary: every shown output by default (then the GPU section, or the
//! line saying it was skipped), the layout or GEMM part on other shapes on
//! request, and one line on stderr with exit code 2 for anything it cannot run.

use ktrav::testing::{assert_default_run, assert_usage_errors, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k5_layout_interop");

#[test]
fn default_prints_every_shown_output() {
    let shown: Vec<String> = k5_layout_interop::shown_outputs().into_iter().map(|(_, text)| text).collect();
    assert_default_run(BIN, &shown);
}

#[test]
fn custom_shapes_run() {
    let text = stdout_of(BIN, &["--rows", "3", "--cols", "8", "--m", "5", "--n", "2", "--k", "7"]);
    assert!(text.contains("a 3x8 matrix:"), "{text}");
    assert!(text.contains("A is 5x7, B is 7x2, C = A*B is 5x2"), "{text}");
    assert_eq!(text.matches("every check above holds: true").count(), 2, "{text}");
    assert!(!text.contains("GPU section"), "{text}");
}

#[test]
fn bad_values_fail_in_one_line() {
    assert_usage_errors(
        BIN,
        &[
            &["--rows", "0"][..],
            &["--cols", "-6"],
            &["--rows", "4097"],
            &["--m", "17"],
            &["--k", "0"],
            &["--n", "two"],
            &["--nonsense"],
        ],
    );
}
