//! The binary: every shown output by default (then the GPU section, or the
//! line saying it was skipped), the layout or GEMM part on other shapes on
//! request, and one line on stderr with exit code 2 for anything it cannot
//! run, before any work.

use ktrav_testing::{assert_default_run, assert_quiet_on_closed_pipe, assert_usage_errors, run_binary, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k5_layout_interop");

#[test]
fn default_prints_every_shown_output() {
    assert_default_run(BIN, &(k5_layout_interop::CHAPTER.report)());
}

#[test]
fn default_run_stops_quietly_when_the_reader_goes_away() {
    assert_quiet_on_closed_pipe(BIN, &[]);
}

#[test]
fn custom_shapes_run() {
    let text = stdout_of(BIN, &["--rows", "3", "--cols", "8", "--m", "5", "--n", "2", "--k", "7"]);
    assert!(text.contains("a 3x8 matrix in each layout"), "{text}");
    assert!(text.contains("A is 5x7, B is 7x2, C = A*B is 5x2"), "{text}");
    assert_eq!(text.matches("every check above holds: true").count(), 2, "{text}");
    assert!(!text.contains("GPU section"), "{text}");
    // One flag of a part is enough; the others keep their defaults.
    let text = stdout_of(BIN, &["--cols", "5"]);
    assert!(text.contains("a 4x5 matrix in each layout") && !text.contains("cuBLAS"), "{text}");
    let text = stdout_of(BIN, &["--k", "5"]);
    assert!(text.contains("A is 2x5, B is 5x4") && !text.contains("in each layout"), "{text}");
}

/// The table where it applies, and more: each refused at once, in
/// one line that says why.
#[test]
fn bad_values_fail_in_one_line() {
    let table: &[(&[&str], &str)] = &[
        (&["--rows", "0"], "not positive"),
        (&["--cols", "-6"], "not positive"),
        (&["--rows", "4097"], "limit of 4096"),
        (&["--rows", "99999999999999999999"], "limit of 4096"),
        (&["--cols", "1.5"], "not a whole number"),
        // Each side allowed, the whole refused before anything is allocated.
        (&["--rows", "4096", "--cols", "4096"], "16777216 matrix elements, more than the limit of 4194304"),
        (&["--m", "17"], "limit of 16"),
        (&["--k", "0"], "not positive"),
        (&["--n", "two"], "not a whole number"),
        (&["--m", "-1"], "not positive"),
        (&["--nonsense"], "--nonsense"),
    ];
    let cases: Vec<&[&str]> = table.iter().map(|(args, _)| *args).collect();
    assert_usage_errors(BIN, &cases);
    for (args, says) in table {
        let err = String::from_utf8(run_binary(BIN, args).stderr).unwrap();
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_check_usage_errors(BIN, &k5_layout_interop::CHAPTER);
}

#[test]
fn check_without_a_gpu_says_it_could_not_check() {
    ktrav_testing::assert_check_could_not_check(BIN, &k5_layout_interop::CHAPTER);
}

/// `--gpu` at a reader's shape: without a GPU, the one line; every shape or
/// flag it cannot run refused in one line before any GPU is probed.
#[test]
fn gpu_at_a_shape_refuses_what_it_cannot_run() {
    let refused: &[(&[&str], &str)] = &[
        (&["--gpu"], "needs --rows or --cols"),
        (&["--rows", "0", "--gpu"], "0 is not positive"),
        (&["--cols", "-3", "--gpu"], "-3 is not positive"),
        (&["--rows", "4097", "--gpu"], "limit of 4096"),
        (&["--rows", "64", "--gpu", "--m", "4"], "cannot be used with"),
        (&["--rows", "64", "--gpu", "--k", "4"], "cannot be used with"),
    ];
    ktrav_testing::assert_gpu_at_shape(BIN, &["--rows", "4096", "--cols", "3000", "--gpu"], refused);
}

#[test]
fn sim_check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_sim_check_usage_errors(BIN, &k5_layout_interop::CHAPTER);
}
