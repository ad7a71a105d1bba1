//! The binary: every shown output by default (then the GPU section, or the
//! line saying it was skipped), custom launches on request, and one line on
//! stderr with exit code 2 for anything it cannot run, before any work.

use ktrav_testing::{assert_default_run, assert_quiet_on_closed_pipe, assert_usage_errors, run_binary, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k4_boundary_check");

#[test]
fn default_prints_every_shown_output() {
    assert_default_run(BIN, &(k4_boundary_check::CHAPTER.report)());
}

#[test]
fn default_run_stops_quietly_when_the_reader_goes_away() {
    assert_quiet_on_closed_pipe(BIN, &[]);
}

#[test]
fn custom_launch_runs() {
    let text = stdout_of(BIN, &["--rows", "6", "--cols", "13", "--block-x", "8", "--block-y", "2", "--shuffles", "20"]);
    assert!(
        text.contains("matrix 6x13, blocks of 8x2, grid 2x3: 3 columns past the last real column in every row"),
        "{text}"
    );
    assert!(text.contains("both axes checked: every cell right: true"), "{text}");
    assert!(text.contains("20 seeded shuffles of all 6 blocks, seeds from 0:"), "{text}");
    // A custom run is simulation only: no GPU section, not even the skip line.
    assert!(!text.contains("GPU section"), "{text}");
    // Any one launch flag is enough; the others keep their defaults.
    let text = stdout_of(BIN, &["--block-x", "3", "--shuffles", "0"]);
    assert!(text.starts_with("matrix 4x10, blocks of 3x1, grid 4x4:"), "{text}");
    assert!(!text.contains("seeded shuffles"), "{text}");
}

/// The table and more: each refused at once, in one line.
#[test]
fn bad_values_fail_in_one_line() {
    let table: &[(&[&str], &str)] = &[
        (&["--rows", "0"], "not positive"),
        (&["--rows", "-4"], "not positive"),
        (&["--rows", "99999999999999999999"], "limit of 4096"),
        (&["--rows", "4097"], "limit of 4096"),
        (&["--cols", "-3"], "not positive"),
        (&["--cols", "1000"], "limit of 999"),
        (&["--block-x", "x"], "not a whole number"),
        (&["--block-x", "64", "--block-y", "32"], "2048 threads"),
        (&["--rows", "3", "--shuffles", "100001"], "from 0 to 100000"),
        (&["--rows", "3", "--shuffles", "-1"], "from 0 to 100000"),
        (&["--rows", "3", "--seed", "-1"], "not a seed"),
        (&["--rows", "3", "--seed", "99999999999999999999"], "not a seed"),
        // Companions: shuffles and seeds only matter for a custom launch.
        (&["--shuffles", "20"], "needs --rows"),
        (&["--seed", "7"], "needs --rows"),
        (&["--seed", "-1"], "not a seed"),
        // The work is estimated before any is done.
        (&["--rows", "4096", "--cols", "999", "--shuffles", "200"], "limit of 268435456"),
        (&["--rows", "4096", "--cols", "999", "--block-x", "32", "--shuffles", "100000"], "limit of"),
        (&["--rows", "4096", "--cols", "999", "--block-y", "512"], "limit of"),
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
    ktrav_testing::assert_check_usage_errors(BIN, &k4_boundary_check::CHAPTER);
}

#[test]
fn check_without_a_gpu_says_it_could_not_check() {
    ktrav_testing::assert_check_could_not_check(BIN, &k4_boundary_check::CHAPTER);
}

/// `--gpu` at a reader's shape: without a GPU, the one line; every shape or
/// flag it cannot run refused in one line before any GPU is probed.
#[test]
fn gpu_at_a_shape_refuses_what_it_cannot_run() {
    let refused: &[(&[&str], &str)] = &[
        (&["--gpu"], "needs --rows"),
        (&["--rows", "0", "--gpu"], "0 is not positive"),
        (&["--cols", "-3", "--gpu"], "-3 is not positive"),
        // The markers row * 1000 + col stay unique and exact only below 1000 columns.
        (&["--cols", "1000", "--gpu"], "limit of 999"),
        (&["--rows", "4097", "--gpu"], "limit of 4096"),
        (&["--rows", "64", "--gpu", "--block-x", "16"], "cannot be used with"),
        (&["--rows", "64", "--gpu", "--shuffles", "3"], "cannot be used with"),
        (&["--rows", "64", "--gpu", "--seed", "3"], "cannot be used with"),
    ];
    ktrav_testing::assert_gpu_at_shape(BIN, &["--rows", "4000", "--cols", "999", "--gpu"], refused);
}

#[test]
fn sim_check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_sim_check_usage_errors(BIN, &k4_boundary_check::CHAPTER);
}
