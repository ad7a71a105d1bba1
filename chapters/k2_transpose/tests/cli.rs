//! The binary: the worked example by default, custom shapes on request,
//! and one line on stderr with exit code 2 for anything it cannot run.

use ktrav_testing::{assert_default_run, assert_quiet_on_closed_pipe, assert_usage_errors, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k2_transpose");

#[test]
fn default_prints_the_worked_example() {
    assert_default_run(BIN, &(k2_transpose::CHAPTER.report)());
}

#[test]
fn custom_shape_runs() {
    let text = stdout_of(BIN, &["--rows", "33", "--cols", "65", "--tile", "16"]);
    assert!(text.contains("\n33x65  16    5x3   7 of 15        3 of 3       3 of 3\n"), "{text}");
    // One flag is enough for a custom run; the others keep their defaults.
    let text = stdout_of(BIN, &["--tile", "8"]);
    assert!(text.contains("\n70x45  8     6x9   "), "{text}");
}

#[test]
fn a_closed_pipe_stops_quietly() {
    assert_quiet_on_closed_pipe(BIN, &[]);
}

#[test]
fn bad_values_fail_in_one_line() {
    assert_usage_errors(
        BIN,
        &[
            &["--rows", "0"][..],
            &["--cols", "-4"],
            &["--rows", "abc"],
            &["--rows", "1.5"],
            &["--tile", "0"],
            &["--tile", "33"],
            &["--tile", "99999999999999999999"],
            // Refused before anything is allocated: this once aborted trying to allocate 40 GB.
            &["--rows", "100000", "--cols", "100000"],
            &["--rows", "99999999999999999999", "--cols", "1"],
            &["--rows", "8192", "--cols", "8192"],
            &["--rows", "4097", "--cols", "4096"],
            &["--rows", "3000000", "--tile", "1"],
            &["--cols"],
            &["--large"],
            &["--nonsense"],
        ],
    );
}

#[test]
fn check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_check_usage_errors(BIN, &k2_transpose::CHAPTER);
}

#[test]
fn check_without_a_gpu_says_it_could_not_check() {
    ktrav_testing::assert_check_could_not_check(BIN, &k2_transpose::CHAPTER);
}

/// `--gpu` at a reader's shape: without a GPU, the one line; every shape or
/// flag it cannot run refused in one line before any GPU is probed.
#[test]
fn gpu_at_a_shape_refuses_what_it_cannot_run() {
    let refused: &[(&[&str], &str)] = &[
        (&["--gpu"], "needs --rows or --cols"),
        (&["--rows", "0", "--gpu"], "0 is not positive"),
        (&["--cols", "-3", "--gpu"], "-3 is not positive"),
        (&["--rows", "99999999999999999999", "--gpu"], "larger than the limit"),
        // Past what the host holds the reference of, though each side is allowed.
        (&["--rows", "16777216", "--cols", "16777216", "--gpu"], "matrix elements on the GPU"),
        (&["--rows", "40000", "--cols", "30000", "--gpu"], "limit of 1073741824"),
        // The tile is the teaching kernels' own, not the reader's, on the GPU.
        (&["--rows", "64", "--gpu", "--tile", "16"], "cannot be used with"),
        (&["--rows", "64", "--gpu=yes"], "--gpu"),
    ];
    ktrav_testing::assert_gpu_at_shape(BIN, &["--rows", "5000", "--cols", "3000", "--gpu"], refused);
}

#[test]
fn sim_check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_sim_check_usage_errors(BIN, &k2_transpose::CHAPTER);
}

/// The refusal "Try it" shows on the page is the one the binary prints.
#[test]
fn a_tile_past_32_is_refused_as_the_page_shows() {
    let out = ktrav_testing::run_binary(BIN, &["--tile", "33"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("error: {}\n", k2_transpose::values::tile33_error()));
}
