//! The binary: the worked example and what the book adds to it by default,
//! a custom shape on request, and one line on stderr with exit code 2 for
//! anything it cannot run.

use ktrav_testing::{assert_default_run, assert_quiet_on_closed_pipe, assert_usage_errors, run_binary, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k6_spiral");

#[test]
fn default_prints_the_worked_example_then_the_gpu_line() {
    assert_default_run(BIN, &(k6_spiral::CHAPTER.report)());
}

#[test]
fn a_closed_pipe_stops_it_quietly() {
    assert_quiet_on_closed_pipe(BIN, &[]);
    assert_quiet_on_closed_pipe(BIN, &["--rows", "5", "--cols", "8"]);
}

#[test]
fn custom_shape_runs() {
    let text = stdout_of(BIN, &["--rows", "5", "--cols", "8", "--block-x", "3", "--block-y", "2"]);
    assert!(text.starts_with("5x8 matrix, 3x2 blocks, grid 3x3 (54 threads for 40 elements)"), "{text}");
    assert!(text.contains("spiral_gather (shuffled blocks): output equals the walk's reference: true"), "{text}");
    assert!(text.contains("  20 35 36 37 38 39 28  9"), "{text}");
    assert!(!text.contains("GPU"), "a custom run has no GPU section: {text}");
}

/// Every input the binary refuses, and what its one line must say: refused
/// before any work (within the time `assert_usage_errors` allows).
#[test]
fn bad_input_fails_in_one_line_naming_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (&["--rows", "0"], "0 is not positive"),
        (&["--rows", "-3"], "-3 is not positive"),
        (&["--cols", "x"], "'x' is not a whole number"),
        (&["--cols", "4.5"], "not a whole number"),
        (&["--rows", "99999999999999999999"], "larger than the limit of 16777216"),
        (&["--rows", "16777217"], "larger than the limit of 16777216"),
        (&["--rows", "4", "--cols", "4", "--block-x", "64", "--block-y", "32"], "2048 threads"),
        (&["--rows", "4", "--block-x", "0"], "0 is not positive"),
        (&["--rows", "16000000", "--cols", "1", "--block-y", "1"], "blocks along y"),
        // Too many elements for the simulator's memory.
        (&["--rows", "5000", "--cols", "5000"], "the limit of 16777216"),
        (&["--rows", "16777216", "--cols", "16777216"], "matrix elements"),
        // Within the element limit, but too many idle threads to simulate.
        (&["--rows", "1", "--cols", "16777216", "--block-x", "1", "--block-y", "1024"], "simulated steps"),
        // Flags that only matter with a shape.
        (&["--block-x", "8"], "needs --rows"),
        (&["--block-y", "8"], "needs --rows"),
        (&["--block-x", "2000"], "limit of 1024"),
        (&["--nonsense"], "--nonsense"),
    ];
    let args: Vec<&[&str]> = cases.iter().map(|(args, _)| *args).collect();
    assert_usage_errors(BIN, &args);
    for (args, says) in cases {
        let err = String::from_utf8(run_binary(BIN, args).stderr).unwrap();
        assert!(err.contains(says), "{args:?} should say {says:?}: {err}");
    }
}

#[test]
fn check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_check_usage_errors(BIN, &k6_spiral::CHAPTER);
}

#[test]
fn check_without_a_gpu_says_it_could_not_check() {
    ktrav_testing::assert_check_could_not_check(BIN, &k6_spiral::CHAPTER);
}

/// `--gpu` at a reader's shape: without a GPU, the one line; every shape or
/// flag it cannot run refused in one line before any GPU is probed.
#[test]
fn gpu_at_a_shape_refuses_what_it_cannot_run() {
    let refused: &[(&[&str], &str)] = &[
        (&["--gpu"], "needs --rows or --cols"),
        (&["--rows", "0", "--gpu"], "0 is not positive"),
        (&["--cols", "-3", "--gpu"], "-3 is not positive"),
        (&["--rows", "16777217", "--gpu"], "larger than the limit of 16777216"),
        (&["--rows", "16777216", "--cols", "16777216", "--gpu"], "matrix elements on the GPU"),
        (&["--rows", "40000", "--cols", "30000", "--gpu"], "limit of 1073741824"),
        (&["--rows", "64", "--gpu", "--block-x", "16"], "cannot be used with"),
        (&["--rows", "64", "--gpu", "--block-y", "16"], "cannot be used with"),
    ];
    ktrav_testing::assert_gpu_at_shape(BIN, &["--rows", "5000", "--cols", "3000", "--gpu"], refused);
}

#[test]
fn sim_check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_sim_check_usage_errors(BIN, &k6_spiral::CHAPTER);
}
