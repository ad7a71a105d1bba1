use super::*;
use proptest::prelude::*;

#[test]
fn canonical_3x3_walk() {
    let values: Vec<u64> = spiral_order(Shape::new(3, 3)).iter().map(|&(r, c)| r * 3 + c + 1).collect();
    assert_eq!(values, [1, 2, 3, 6, 9, 8, 7, 4, 5]);
}

#[test]
fn ring_starts_follow_the_peeled_area() {
    // 6x9: ring 0 has 2*(9+6)-4 = 26 positions, ring 1 has 2*(7+4)-4 = 18.
    assert_eq!(ring_start(0, 6, 9), 0);
    assert_eq!(ring_start(1, 6, 9), 26);
    assert_eq!(ring_start(2, 6, 9), 44);
    assert_eq!(last_ring(6, 9), 2);
    assert_eq!(last_ring(1, 9), 0);
}

#[test]
fn rank_grid_of_4x5() {
    // Read along the spiral: 0..=4 on top, 5..=7 down the right, and so on.
    let expect = "   0  1  2  3  4\n  13 14 15 16  5\n  12 19 18 17  6\n  11 10  9  8  7\n";
    assert_eq!(rank_grid(Shape::new(4, 5)), expect);
}

/// The proof by exhaustion: for every shape up to 64x64, the rank
/// closed form and its inverse agree with the sequential walk everywhere.
/// (The walk is checked to be a permutation inside `cross_check`.)
#[test]
fn every_shape_up_to_64x64_agrees_with_the_walk() {
    for rows in 1..=64 {
        for cols in 1..=64 {
            let check = cross_check(Shape::new(rows, cols));
            assert!(check.ok(), "{rows}x{cols}: {check:?}");
        }
    }
}

/// A broken closed form must be caught: a walk with two positions swapped
/// no longer matches the ranks.
#[test]
fn a_wrong_order_is_detected() {
    let mut walk = spiral_order(Shape::new(4, 5));
    walk.swap(6, 7);
    let agrees = walk.iter().enumerate().all(|(i, &(r, c))| spiral_rank(r, c, 4, 5) == i as u64);
    assert!(!agrees);
}

#[test]
fn source_cases_pass_in_the_report() {
    let text = report::plain(&worked_example());
    assert!(!text.contains("false"), "{text}");
    // The 3x3 walk's line, then a "true" cell for each shape and each kernel case.
    assert_eq!(text.matches(": true").count(), 1);
    assert_eq!(text.matches(" true\n").count(), 1 + 10 + COLLAPSED_RING_SHAPES.len() + 4);
    assert!(text.contains("shapes where a rank differs: 0 of 14"), "{text}");
    assert!(text.contains("cases whose output differs: 0 of 4"), "{text}");
    assert!(text.contains("walked:   1 2 3 6 9 8 7 4 5"));
    let beyond = report::plain(&beyond_the_source());
    assert!(!beyond.contains("false"), "{beyond}");
}

#[test]
fn the_copy_side_that_follows_the_grid_is_coalesced() {
    // 64 floats per row, a warp is half a row: its loads (scatter) or
    // stores (gather) cover 128 contiguous bytes: 4 sectors, the least.
    let s = coalescing(Kernel::Scatter, Shape::new(64, 64), Dim2::new(32, 8)).unwrap();
    let g = coalescing(Kernel::Gather, Shape::new(64, 64), Dim2::new(32, 8)).unwrap();
    assert_eq!(s.warps, 128);
    assert_eq!(s.read_sectors, 4.0);
    assert_eq!(g.write_sectors, 4.0);
    assert!(s.write_sectors > 4.0 && g.read_sectors > 4.0);
}

#[test]
fn bad_launch_shapes_are_errors_not_panics() {
    let report = |shape, block| shape_report(shape, block, &mut |_| {});
    assert!(report(Shape::new(4, 4), Dim2::new(64, 32)).is_err());
    assert!(report(Shape::new(4, 4), Dim2::new(0, 4)).is_err());
    assert!(report(Shape::new(70_000, 1), Dim2::new(1, 1)).is_err()); // gridDim.y over 65535
    assert!(shape_report_work(Shape::new(70_000, 1), Dim2::new(1, 1)).is_err());
}

#[test]
fn the_work_estimate_counts_what_the_report_does() {
    let (shape, block) = (Shape::new(37, 23), Dim2::new(8, 4));
    let mut done = 0;
    shape_report(shape, block, &mut |n| done += n).unwrap();
    assert_eq!(done, shape_report_work(shape, block).unwrap());
}

/// The slow, obviously correct ring search the closed-form inverse replaces.
fn ring_by_search(rank: u64, rows: u64, cols: u64) -> u64 {
    let (mut lo, mut hi) = (0, last_ring(rows, cols));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if ring_start(mid, rows, cols) <= rank {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

proptest! {
    /// Independently of the walk: over any shape up to 64x64, the ranks of
    /// all positions are exactly 0..n (a bijection), and the inverse undoes it.
    #[test]
    fn both_forms_are_inverse_bijections(rows in 1u64..=64, cols in 1u64..=64) {
        let n = rows * cols;
        let mut hit = vec![false; n as usize];
        for r in 0..rows {
            for c in 0..cols {
                let k = spiral_rank(r, c, rows, cols);
                prop_assert!(k < n && !hit[k as usize]);
                hit[k as usize] = true;
                prop_assert_eq!(spiral_position(k, rows, cols), (r, c));
            }
        }
    }

    /// GPU-sized shapes (dimensions up to 2^31 - 1): the float estimate plus
    /// integer corrections always lands on the exact ring, and the two
    /// forms undo each other.
    #[test]
    fn inverse_is_exact_on_huge_shapes(
        rows in 1u64..(1 << 31), cols in 1u64..(1 << 31), a in any::<u64>(), b in any::<u64>()
    ) {
        let rank = a % (rows * cols);
        prop_assert_eq!(ring_containing(rank, rows, cols), ring_by_search(rank, rows, cols));
        let (r, c) = spiral_position(rank, rows, cols);
        prop_assert!(r < rows && c < cols);
        prop_assert_eq!(spiral_rank(r, c, rows, cols), rank);
        let (r, c) = (b % rows, (b / rows) % cols);
        prop_assert_eq!(spiral_position(spiral_rank(r, c, rows, cols), rows, cols), (r, c));
    }

    /// Ranks near ring boundaries are where an off-by-one would hide.
    #[test]
    fn ring_boundaries_on_huge_shapes(rows in 1u64..(1 << 31), cols in 1u64..(1 << 31), k in any::<u64>()) {
        let k = k % (last_ring(rows, cols) + 1);
        let start = ring_start(k, rows, cols);
        prop_assert_eq!(ring_containing(start, rows, cols), k);
        if start > 0 {
            prop_assert_eq!(ring_containing(start - 1, rows, cols), k - 1);
        }
    }

    /// Both kernels, any shape, any block shape, any block order: the output
    /// is the walk's reference, and each output slot is written exactly once.
    #[test]
    fn kernels_match_the_walk(
        rows in 1u64..40, cols in 1u64..40, bx in 1u32..40, by in 1u32..20, seed in any::<u64>()
    ) {
        let shape = Shape::new(rows, cols);
        let input: Vec<u32> = (0..(rows * cols) as u32).collect();
        let expect = reference(&input, shape);
        let block = Dim2::new(bx, by);
        for kernel in [Kernel::Scatter, Kernel::Gather] {
            let out = simulate(kernel, &input, shape, block, &BlockOrder::Shuffled(seed)).unwrap();
            prop_assert_eq!(&out, &expect);
            let cfg = plan(shape, block).unwrap();
            let mut writes = vec![0u8; (rows * cols) as usize];
            launch(&cfg, &BlockOrder::Forward, |t| {
                if let Some((_, to)) = kernel.indices(t, rows, cols) {
                    writes[to as usize] += 1;
                }
            });
            prop_assert!(writes.iter().all(|&w| w == 1));
        }
    }
}
