//! What a custom experiment accepts: exactly the simulator's element limit
//! and not one element more, and a cache with every side positive.

use k1_row_col_major::{accesses, slot_checks, validate, CacheConfig, MAX_ELEMENTS, SOURCE_CACHE};
use ktrav::Shape;

#[test]
fn the_element_limit_is_inclusive() {
    assert_eq!(MAX_ELEMENTS, 1 << 30);
    assert!(validate(Shape::new(1 << 15, 1 << 15), &SOURCE_CACHE).is_ok());
    assert!(validate(Shape::new(1, MAX_ELEMENTS), &SOURCE_CACHE).is_ok());
    let past = validate(Shape::new(1, MAX_ELEMENTS + 1), &SOURCE_CACHE).unwrap_err().to_string();
    assert_eq!(past, "a 1x1073741825 matrix has more than 1073741824 elements, the simulator's limit");
    // A shape whose element count overflows is refused the same way.
    assert!(validate(Shape::new(u64::MAX, 2), &SOURCE_CACHE).is_err());
    for empty in [Shape::new(0, 4), Shape::new(4, 0)] {
        assert_eq!(validate(empty, &SOURCE_CACHE).unwrap_err().to_string(), "matrix dimensions must be positive");
    }
}

#[test]
fn every_side_of_the_cache_must_be_positive() {
    let four = Shape::new(4, 4);
    let good = CacheConfig { lines: 8, line_bytes: 64, ways: 2 };
    assert!(validate(four, &good).is_ok());
    for bad in
        [CacheConfig { lines: 0, ..good }, CacheConfig { ways: 0, ..good }, CacheConfig { line_bytes: 0, ..good }]
    {
        let e = validate(four, &bad).unwrap_err().to_string();
        assert_eq!(e, "cache lines, ways and line size must be positive", "{bad:?}");
    }
}

#[test]
fn the_work_is_four_runs_of_every_element() {
    assert_eq!(accesses(Shape::new(8, 64)), Some(4 * 512));
    assert_eq!(accesses(Shape::new(1 << 62, 2)), None);
    let two_way = CacheConfig { lines: 8, line_bytes: 64, ways: 2 };
    assert_eq!(slot_checks(Shape::new(8, 64), &two_way), Some(4 * 512 * 2));
}
