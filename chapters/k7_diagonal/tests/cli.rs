//! The binary: the worked example and what the book adds to it by default,
//! a custom table on request, and one line on stderr with exit code 2 for
//! anything it cannot run.

use ktrav_testing::{assert_default_run, assert_quiet_on_closed_pipe, assert_usage_errors, run_binary, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k7_diagonal");

#[test]
fn default_prints_the_worked_example_then_the_gpu_line() {
    assert_default_run(BIN, &(k7_diagonal::CHAPTER.report)());
}

/// `k7_diagonal | head -1`: the reader goes away before the report ends,
/// and the binary stops quietly with exit code 0, no panic.
#[test]
fn a_closed_pipe_stops_it_quietly() {
    assert_quiet_on_closed_pipe(BIN, &[]);
    assert_quiet_on_closed_pipe(BIN, &["--rows", "37", "--cols", "53"]);
}

#[test]
fn custom_table_runs() {
    let text = stdout_of(BIN, &["--rows", "37", "--cols", "53", "--block-x", "8", "--tile", "8", "--seed", "3"]);
    assert!(text.starts_with("37x53 table, 89 diagonals\n"), "{text}");
    assert!(
        text.contains("lattice_wavefront, block_dim_x=8, 89 launches: the same table as scalar_dp: true"),
        "{text}"
    );
    assert!(text.contains("lattice_tiled, 8x8 tiles, 11 launches: the same table as scalar_dp: true"), "{text}");
    assert!(text.contains("paths to the far corner (mod 2^61-1): 2117105805114612737, binomial check: true"), "{text}");
    assert!(!text.contains("GPU"), "a custom run has no GPU section: {text}");
}

/// Every input the binary refuses, and what its one line must say: refused
/// before any work (within the time `assert_usage_errors` allows).
#[test]
fn bad_input_fails_in_one_line_naming_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (&["--rows", "0"], "0 is not positive"),
        (&["--cols", "-3"], "-3 is not positive"),
        (&["--rows", "x"], "'x' is not a whole number"),
        (&["--rows", "99999999999999999999"], "larger than the limit of 4194304"),
        (&["--rows", "10", "--cols", "10", "--tile", "33"], "larger than the limit of 32"),
        (&["--rows", "4", "--block-x", "2000"], "larger than the limit of 1024"),
        (&["--rows", "4", "--block-x", "0"], "0 is not positive"),
        (&["--rows", "4", "--seed", "-1"], "not a seed"),
        (&["--rows", "4", "--seed", "99999999999999999999"], "not a seed"),
        // Too many cells for the simulator's memory.
        (&["--rows", "3000", "--cols", "3000"], "table cells"),
        (&["--rows", "4194304", "--cols", "4194304"], "the limit of 4194304"),
        // The case: the single launch's grid is too tall, found
        // before any version is simulated, so within the refusal limit.
        (&["--rows", "4194304", "--cols", "1"], "blocks along y"),
        // Within the cell limit, but too much to simulate.
        (&["--rows", "1", "--cols", "4194304", "--block-x", "1024"], "simulated steps"),
        // Flags that only matter with a shape.
        (&["--seed", "-1"], "not a seed"),
        (&["--seed", "5"], "needs --rows"),
        (&["--tile", "8"], "needs --rows"),
        (&["--block-x", "8"], "needs --rows"),
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
    ktrav_testing::assert_check_usage_errors(BIN, &k7_diagonal::CHAPTER);
}

#[test]
fn check_without_a_gpu_says_it_could_not_check() {
    ktrav_testing::assert_check_could_not_check(BIN, &k7_diagonal::CHAPTER);
}

/// `--gpu` at a reader's shape: without a GPU, the one line; every shape or
/// flag it cannot run refused in one line before any GPU is probed.
#[test]
fn gpu_at_a_shape_refuses_what_it_cannot_run() {
    let refused: &[(&[&str], &str)] = &[
        (&["--gpu"], "needs --rows or --cols"),
        (&["--rows", "0", "--gpu"], "0 is not positive"),
        (&["--cols", "-3", "--gpu"], "-3 is not positive"),
        (&["--rows", "4194305", "--gpu"], "larger than the limit of 4194304"),
        (&["--rows", "4194304", "--cols", "4194304", "--gpu"], "matrix elements on the GPU"),
        (&["--rows", "40000", "--cols", "30000", "--gpu"], "limit of 1073741824"),
        (&["--rows", "64", "--gpu", "--block-x", "16"], "cannot be used with"),
        (&["--rows", "64", "--gpu", "--tile", "16"], "cannot be used with"),
        (&["--rows", "64", "--gpu", "--seed", "3"], "cannot be used with"),
    ];
    ktrav_testing::assert_gpu_at_shape(BIN, &["--rows", "5000", "--cols", "3000", "--gpu"], refused);
}

#[test]
fn sim_check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_sim_check_usage_errors(BIN, &k7_diagonal::CHAPTER);
}
