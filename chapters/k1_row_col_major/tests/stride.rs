//! The phrase that gives a crossing stride in floats and in cache lines, on
//! strides below, at and above one line: whole lines, fractions of a line
//! that divide it, and decimal parts otherwise.

use k1_row_col_major::{stride_story, CacheConfig, SOURCE_CACHE};

#[test]
fn strides_of_whole_lines_are_counted_in_lines() {
    // The source's cache: 4 lines of 16 floats.
    let story = |s| stride_story(s, &SOURCE_CACHE);
    assert_eq!(story(16), "16 floats (1 line)");
    assert_eq!(story(48), "48 floats (3 lines)");
    assert_eq!(story(64), "64 floats (4 lines)");
    assert_eq!(story(80), "80 floats (5 lines)");
}

#[test]
fn strides_inside_a_line_that_divide_it_are_fractions_of_a_line() {
    let story = |s| stride_story(s, &SOURCE_CACHE);
    assert_eq!(story(1), "1 float (1/16 line)");
    assert_eq!(story(8), "8 floats (1/2 line)");
    assert_eq!(story(4), "4 floats (1/4 line)");
}

#[test]
fn other_strides_are_decimal_parts_of_a_line() {
    let story = |s| stride_story(s, &SOURCE_CACHE);
    // Below a line, not dividing it.
    assert_eq!(story(3), "3 floats (0.1875 line)");
    assert_eq!(story(12), "12 floats (0.75 line)");
    // Above a line, not a whole number of lines.
    assert_eq!(story(24), "24 floats (1.5 lines)");
    assert_eq!(story(17), "17 floats (1.0625 lines)");
}

#[test]
fn the_line_size_comes_from_the_cache() {
    // 8 lines of 12 floats (48 bytes), 2 ways.
    let cache = CacheConfig { lines: 8, line_bytes: 48, ways: 2 };
    let story = |s| stride_story(s, &cache);
    assert_eq!(story(84), "84 floats (7 lines)");
    assert_eq!(story(12), "12 floats (1 line)");
    assert_eq!(story(3), "3 floats (1/4 line)");
    assert_eq!(story(6), "6 floats (1/2 line)");
    assert_eq!(story(18), "18 floats (1.5 lines)");
    assert_eq!(story(5), format!("5 floats ({} line)", 5.0 / 12.0));
}
