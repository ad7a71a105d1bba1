//! The binary: the worked example by default, other shapes and caches on
//! request, and one line on stderr with exit code 2 for bad input.

use ktrav::testing::{assert_usage_errors, stdout_of};

const BIN: &str = env!("CARGO_BIN_EXE_k1_row_col_major");

#[test]
fn default_prints_the_worked_example() {
    assert_eq!(stdout_of(BIN, &[]), ktrav::report::plain(&k1_row_col_major::worked_example()));
}

#[test]
fn custom_cache_runs() {
    let text = stdout_of(BIN, &["--rows", "8", "--cols", "64", "--lines", "8", "--ways", "2"]);
    assert!(text.contains("8-line cache, 4 sets x 2 ways"), "{text}");
    assert!(text.contains("col-major storage, row-outer (crosses it): 256 hits, 256 misses"), "{text}");
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
            &["--line-bytes", "6"],
            &["--rows", "16777216", "--cols", "16777216"],
            &["--lines", "99999999999999999999999"],
            &["--bogus"],
        ],
    );
}
