use super::*;
use proptest::prelude::*;

#[test]
fn canonical_3x3_zigzag() {
    let values: Vec<u64> = zigzag_order(Shape::new(3, 3)).iter().map(|&(r, c)| r * 3 + c + 1).collect();
    assert_eq!(values, [1, 2, 4, 7, 5, 3, 6, 8, 9]);
}

#[test]
fn row_bounds_of_a_wide_matrix() {
    // 4x5: diagonal 5 runs from (1, 4) down to (3, 2).
    let shape = Shape::new(4, 5);
    assert_eq!((row_min(5, 4, 5), row_max(5, 4, 5)), (1, 3));
    assert_eq!(diagonal_len(0, shape), 1);
    assert_eq!((0..diagonal_count(shape)).map(|d| diagonal_len(d, shape)).sum::<u64>(), 20);
}

#[test]
fn membership_holds_for_every_small_shape() {
    for rows in 1..=30 {
        for cols in 1..=30 {
            assert!(check_membership(Shape::new(rows, cols)).ok(), "{rows}x{cols}");
        }
    }
}

#[test]
fn a_wrong_walk_is_detected() {
    // Swapping two positions of different diagonals breaks membership.
    let shape = Shape::new(4, 5);
    let mut walk = zigzag_order(shape);
    walk.swap(0, 1);
    assert!(!membership_of(&walk, shape).on_own_diagonal);
    // Dropping one position leaves the walk too short.
    let walk = zigzag_order(shape);
    assert!(!membership_of(&walk[..19], shape).ok());
}

/// Every `.cu` file of the chapter states the modulus as the Rust constant
/// has it: the kernels, the starter and every wrong kernel.
#[test]
fn the_cu_files_state_the_modulus_of_the_rust_constant() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("kernels/k7_diagonal.cu")];
    for dir in [root.join("exercises/k7_diagonal"), root.join("exercises/k7_diagonal/wrong")] {
        files.extend(
            std::fs::read_dir(dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "cu")),
        );
    }
    assert!(files.len() >= 3, "{files:?}");
    let stated = format!("#define LATTICE_MODULUS ((1ull << {MODULUS_BITS}) - 1)");
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let defines: Vec<&str> = text.lines().filter(|l| l.starts_with("#define LATTICE_MODULUS")).collect();
        assert_eq!(defines, [stated.as_str()], "{}", file.display());
    }
    assert!(CHAPTER.kernel_source.unwrap().contains(&stated));
}

#[test]
fn modular_addition_wraps_exactly() {
    assert_eq!(add_mod(MODULUS - 1, 1), 0);
    assert_eq!(add_mod(MODULUS - 1, MODULUS - 1), MODULUS - 2);
    assert_eq!(add_mod(2, 3), 5);
    // Garbage from an unwritten cell wraps, as the .cu's unsigned sum does.
    assert_eq!(add_mod(u64::MAX, 2), 1);
}

#[test]
fn scalar_dp_is_pascals_triangle() {
    // Independent of the recurrence: every cell is C(r + c, r).
    let (rows, cols) = (40, 50);
    let grid = scalar_dp(Shape::new(rows, cols));
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(grid[(r * cols + c) as usize], binomial_mod(r + c, r), "({r}, {c})");
        }
    }
    // Small enough to be the true count: C(66, 33) exceeds the modulus, C(60, 30) does not.
    assert_eq!(binomial_mod(60, 30), 118_264_581_564_861_424);
}

#[test]
fn float_limits_are_real() {
    let f = float_limits();
    let (r, c, exact, float) = f.first_inexact;
    assert_eq!(exact as u64, binomial_mod(r + c, r), "the exact value is the binomial");
    assert_ne!(float as u128, exact);
    assert!(exact > 1 << 24, "f32 is exact below 2^24");
    let (r, c) = f.first_infinite;
    assert!(r + c > 100);
}

#[test]
fn source_cases_pass_in_the_report() {
    let text = report::plain(&worked_example());
    assert!(!text.contains("false"), "{text}");
    assert_eq!(text.matches(": true").count(), 1 + 6 + 1 + 5 + 1);
    assert!(text.contains("walked:   1 2 4 7 5 3 6 8 9"));
    for part in [exactness_report(), tiled_report()] {
        assert!(!report::plain(&part).contains("false"), "{part}");
    }
}

#[test]
fn one_launch_per_diagonal() {
    for shape in SOURCE_DP_CASES {
        let (_, launches) = simulate_wavefront(shape, 4, &BlockOrder::Forward).unwrap();
        assert_eq!(launches, shape.rows + shape.cols - 1);
    }
}

#[test]
fn forward_blocks_hide_the_race_and_everything_else_exposes_it() {
    let (shape, block) = (Shape::new(16, 16), Dim2::new(4, 4));
    let wrong = |order: &BlockOrder, i| wrong_cells(&simulate_single_launch(shape, block, order, i).unwrap(), shape);
    assert_eq!(wrong(&BlockOrder::Forward, Interleaving::OneAtATime), 0);
    assert!(wrong(&BlockOrder::Reverse, Interleaving::OneAtATime) > 0);
    assert!(wrong(&BlockOrder::Forward, Interleaving::LockStep) > 0);
}

#[test]
fn lock_step_in_one_block_reads_only_zeros() {
    // One block covers the table: every load happens before any store, so
    // each interior cell sums two zeros from the memset.
    let shape = Shape::new(8, 8);
    let grid = simulate_single_launch(shape, Dim2::new(8, 8), &BlockOrder::Forward, Interleaving::LockStep).unwrap();
    assert_eq!(wrong_cells(&grid, shape), 7 * 7);
}

#[test]
fn bad_launch_shapes_are_errors_not_panics() {
    let report = |block_x, tile| shape_report(Shape::new(4, 4), block_x, tile, 1, &mut |_| {});
    assert!(report(2048, 4).is_err());
    assert!(report(4, 33).is_err()); // a 33x33 block is 1089 threads
    assert!(report(0, 4).is_err());
    // The single launch's grid is checked before any work: 2^20 rows of 4x4 blocks.
    assert!(ShapeWork::of(Shape::new(1 << 22, 1), 4, 4, 1).is_err());
}

#[test]
fn the_work_estimate_counts_what_the_report_does() {
    for (shape, block_x, tile) in [(Shape::new(37, 53), 8, 8), (Shape::new(1, 9), 4, 4), (Shape::new(20, 3), 1, 32)] {
        let mut done = 0;
        shape_report(shape, block_x, tile, 3, &mut |n| done += n).unwrap();
        assert_eq!(done, ShapeWork::of(shape, block_x, tile, 1).unwrap().total(), "{shape}");
    }
}

proptest! {
    /// Within one diagonal the threads are independent: any block size and
    /// any block order give the scalar DP.
    #[test]
    fn wavefront_matches_scalar_dp(rows in 1u64..48, cols in 1u64..48, block_x in 1u32..64, seed in any::<u64>()) {
        let shape = Shape::new(rows, cols);
        let (grid, launches) = simulate_wavefront(shape, block_x, &BlockOrder::Shuffled(seed)).unwrap();
        prop_assert_eq!(grid, scalar_dp(shape));
        prop_assert_eq!(launches, rows + cols - 1);
    }

    /// Tiles on one tile diagonal are independent, and the barrier orders
    /// the cells inside each tile: any tile size and order give the scalar DP,
    /// in one launch per diagonal of tiles.
    #[test]
    fn tiled_matches_scalar_dp(rows in 1u64..48, cols in 1u64..48, tile in 1u32..=8, seed in any::<u64>()) {
        for interleaving in [Interleaving::OneAtATime, Interleaving::LockStep] {
            let shape = Shape::new(rows, cols);
            let (grid, launches) = simulate_tiled(shape, tile, &BlockOrder::Shuffled(seed), interleaving).unwrap();
            prop_assert_eq!(grid, scalar_dp(shape));
            let t = tile as u64;
            prop_assert_eq!(launches, rows.div_ceil(t) + cols.div_ceil(t) - 1);
        }
    }

    /// The single launch with blocks forward and threads one at a time is
    /// correct for every shape: the simulator's default order happens to
    /// respect the dependency, which is exactly why a test suite run only
    /// in that order would never see the bug.
    #[test]
    fn forward_single_launch_is_correct_by_accident(rows in 1u64..40, cols in 1u64..40, bx in 1u32..16, by in 1u32..16) {
        let shape = Shape::new(rows, cols);
        let grid = simulate_single_launch(shape, Dim2::new(bx, by), &BlockOrder::Forward, Interleaving::OneAtATime).unwrap();
        prop_assert_eq!(wrong_cells(&grid, shape), 0);
    }

    /// Reversed blocks break it whenever a block other than the first holds
    /// a cell that needs a neighbour: it runs before that neighbour is written.
    #[test]
    fn reversed_single_launch_breaks(rows in 2u64..40, cols in 2u64..40, b in 1u32..8) {
        prop_assume!(rows > b as u64 || cols > b as u64); // more than one block
        let shape = Shape::new(rows, cols);
        let grid = simulate_single_launch(shape, Dim2::new(b, b), &BlockOrder::Reverse, Interleaving::OneAtATime).unwrap();
        prop_assert!(wrong_cells(&grid, shape) > 0);
    }
}

/// The lock-step schedule is what makes the barrier testable: the same tile
/// update with every thread in ONE load/store step (no barrier between the
/// tile's diagonals) breaks, while the one-at-a-time order would hide it.
#[test]
fn without_the_barrier_the_tiled_kernel_breaks() {
    let (shape, tile) = (Shape::new(8, 8), 4u32);
    let plan = tiled_plan(shape, tile).unwrap();
    let without_barrier = |interleaving| {
        let mut grid = vec![0u64; 64];
        // Each thread runs its own step at once: one step, no barrier.
        run_plan(&mut grid, &plan, 1, &BlockOrder::Forward, interleaving, |t, _, grid, tile_d| {
            let own_step = (t.thread_idx.x + t.thread_idx.y) as usize;
            lattice_tiled(t, own_step, grid, shape.rows, shape.cols, tile_d)
        });
        wrong_cells(&grid, shape)
    };
    assert!(without_barrier(Interleaving::LockStep) > 0);
    assert_eq!(without_barrier(Interleaving::OneAtATime), 0);
}

/// The recurrence exists once: every kernel twin stores what
/// `lattice_cell` computes, so a table filled any correct way is a fixed
/// point of it.
#[test]
fn every_fill_is_a_fixed_point_of_the_one_recurrence() {
    let shape = Shape::new(13, 17);
    let (grid, _) = simulate_tiled(shape, 4, &BlockOrder::Reverse, Interleaving::LockStep).unwrap();
    for r in 0..shape.rows {
        for c in 0..shape.cols {
            assert_eq!(grid[(r * shape.cols + c) as usize], lattice_cell(&grid, r, c, shape.cols));
        }
    }
}

#[test]
fn the_fast_plans_size_their_work_buffers() {
    let shape = Shape::new(4096, 4096);
    let v1 = crate::lattice_v1_plan(shape, 132).unwrap();
    assert_eq!((v1.cfg.grid.x, v1.cfg.block.x, v1.work_words), (128, 32, 2 + 128 * 4096));
    let v2 = crate::lattice_v2_plan(shape, 132).unwrap();
    assert_eq!((v2.cfg.grid.x, v2.work_words), (64, 2 + 64 * 4096));
    let v3 = crate::lattice_v3_plan(shape, 132).unwrap();
    assert_eq!((v3.cfg.grid.x, v3.cfg.block.x, v3.work_words), (1056, 256, 3 + 2 * 8191));
}

/// Every single-launch version states what it assumes of its block, and a
/// plan that breaks it is refused before a launch: v1 and v2 work warp by
/// warp (whole warps), v3's first warp builds the tables alone (at least
/// one warp), v4 and v5 step as exactly one warp. Every plan meets its rule.
#[test]
fn the_single_launch_versions_refuse_blocks_they_are_not_written_for() {
    use ktrav::ladder::{BlockRule, PlanError};
    let rules: Vec<BlockRule> = crate::VERSIONS.iter().map(|v| v.block).collect();
    let one_warp = BlockRule::Exactly(ktrav::Dim2::new(32, 1));
    assert_eq!(rules, [BlockRule::WholeWarps, BlockRule::WholeWarps, BlockRule::AtLeastOneWarp, one_warp, one_warp]);
    // (version, a block its kernel is not written for)
    let broken = [(0, 48), (1, 16), (2, 16), (3, 64), (4, 64)];
    for (i, threads) in broken {
        let mut v = crate::VERSIONS[i];
        let shape = Shape::new(100, 100);
        v.checked_plan(shape, 132).unwrap_or_else(|e| panic!("{}: {e}", v.kernel));
        v.plan = match i {
            0 => |s, sms| crate::lattice_v1_plan(s, sms).map(|p| with_block(p, 48)),
            1 => |s, sms| crate::lattice_v2_plan(s, sms).map(|p| with_block(p, 16)),
            2 => |s, sms| crate::lattice_v3_plan(s, sms).map(|p| with_block(p, 16)),
            3 => |s, sms| crate::lattice_v4_plan(s, sms).map(|p| with_block(p, 64)),
            _ => |s, sms| crate::lattice_v5_plan(s, sms).map(|p| with_block(p, 64)),
        };
        match v.checked_plan(shape, 132) {
            Err(PlanError::Block { block, .. }) => assert_eq!(block, ktrav::Dim2::new(threads, 1), "{}", v.kernel),
            other => panic!("{} with {threads} threads: {other:?}", v.kernel),
        }
    }
}

fn with_block(mut p: ktrav::ladder::Plan, threads: u32) -> ktrav::ladder::Plan {
    p.cfg.block = ktrav::Dim2::new(threads, 1);
    p
}
