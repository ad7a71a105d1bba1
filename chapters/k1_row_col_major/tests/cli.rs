//! The binary: the worked example by default, other shapes and caches on
//! request, and one line on stderr with exit code 2 for bad input.

use ktrav_testing::{assert_quiet_on_closed_pipe, assert_usage_errors, run_binary, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k1_row_col_major");

#[test]
fn default_prints_the_worked_example() {
    let report = (k1_row_col_major::CHAPTER.report)().join("\n");
    assert_eq!(stdout_of(BIN, &[]), ktrav_term::report::plain(&report));
}

#[test]
fn custom_cache_runs() {
    let text = stdout_of(BIN, &["--rows", "8", "--cols", "64", "--lines", "8", "--ways", "2"]);
    assert!(text.contains("8 lines of 16 floats, 4 sets x 2 ways"), "{text}");
    assert!(text.contains("col-major storage, row-outer (crosses it): 256 hits, 256 misses"), "{text}");
    // One flag is enough for a custom run; the others keep their defaults.
    let text = stdout_of(BIN, &["--lines", "8"]);
    assert!(text.starts_with("8x64 matrix, 8 lines of 16 floats, fully associative"), "{text}");
}

#[test]
fn measuring_in_a_debug_build_warns() {
    let out = run_binary(BIN, &["--measure", "--measure-size", "64"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.contains("warning: timings in a debug build"), cfg!(debug_assertions), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("measured on this CPU, 64x64 row-major floats"));
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
            &["--rows", "-5"],
            &["--cols", "ten"],
            &["--lines", "6", "--ways", "4"],
            &["--lines", "0"],
            &["--line-bytes", "6"],
            &["--rows", "16777216", "--cols", "16777216"],
            &["--rows", "4096", "--cols", "4096", "--lines", "65536"],
            &["--lines", "99999999999999999999999"],
            &["--measure-size", "64"],
            &["--measure", "--measure-size", "40000"],
            &["--measure", "--measure-size", "-1"],
            &["--rows"],
            &["--bogus"],
        ],
    );
}

#[test]
fn sim_check_refuses_bad_input_in_one_line() {
    ktrav_testing::assert_sim_check_usage_errors(BIN, &k1_row_col_major::CHAPTER);
}
