//! The sentence that explains a crossing stride, on strides below, at and
//! above one cache line: each of its three cases reads differently, and
//! the whole-line case says which side of the cache's capacity it is on.

use k1_row_col_major::{stride_story, CacheConfig, SOURCE_CACHE};

#[test]
fn strides_of_whole_lines_are_counted_in_lines_against_the_capacity() {
    // The source's cache: 4 lines of 16 floats.
    let story = |s| stride_story(s, &SOURCE_CACHE);
    assert_eq!(story(16), "16 floats = 1 whole lines, less than the 4-line capacity");
    assert_eq!(story(48), "48 floats = 3 whole lines, less than the 4-line capacity");
    assert_eq!(story(64), "64 floats = 4 whole lines, at least the 4-line capacity");
    assert_eq!(story(80), "80 floats = 5 whole lines, at least the 4-line capacity");
}

#[test]
fn strides_inside_a_line_that_divide_it_are_fractions_of_a_line() {
    let story = |s| stride_story(s, &SOURCE_CACHE);
    assert_eq!(story(1), "1 floats = 1/16 of a 16-float line");
    assert_eq!(story(8), "8 floats = 1/2 of a 16-float line");
    assert_eq!(story(4), "4 floats = 1/4 of a 16-float line");
}

#[test]
fn other_strides_are_decimal_parts_of_a_line() {
    let story = |s| stride_story(s, &SOURCE_CACHE);
    // Below a line, not dividing it.
    assert_eq!(story(3), "3 floats = 0.1875 of a 16-float line");
    assert_eq!(story(12), "12 floats = 0.75 of a 16-float line");
    // Above a line, not a whole number of lines.
    assert_eq!(story(24), "24 floats = 1.5 of a 16-float line");
    assert_eq!(story(17), "17 floats = 1.0625 of a 16-float line");
}

#[test]
fn the_line_size_and_capacity_come_from_the_cache() {
    // 8 lines of 12 floats (48 bytes), 2 ways.
    let cache = CacheConfig { lines: 8, line_bytes: 48, ways: 2 };
    let story = |s| stride_story(s, &cache);
    assert_eq!(story(84), "84 floats = 7 whole lines, less than the 8-line capacity");
    assert_eq!(story(96), "96 floats = 8 whole lines, at least the 8-line capacity");
    assert_eq!(story(3), "3 floats = 1/4 of a 12-float line");
    assert_eq!(story(6), "6 floats = 1/2 of a 12-float line");
    assert_eq!(story(18), "18 floats = 1.5 of a 12-float line");
    assert_eq!(story(5), format!("5 floats = {} of a 12-float line", 5.0 / 12.0));
}

/// The three cases never read alike: each has its own wording.
#[test]
fn each_case_has_its_own_wording() {
    let (whole, fraction, decimal) =
        (stride_story(32, &SOURCE_CACHE), stride_story(2, &SOURCE_CACHE), stride_story(40, &SOURCE_CACHE));
    assert!(whole.contains("whole lines") && !whole.contains("of a"), "{whole}");
    assert!(fraction.contains("= 1/8 of a") && !fraction.contains("whole"), "{fraction}");
    assert!(decimal.contains("= 2.5 of a") && !decimal.contains('/') && !decimal.contains("whole"), "{decimal}");
}
