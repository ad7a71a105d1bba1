//! The numbers K.7's page quotes, computed here (see `book/values.txt`).
//!
//! The single launch is run under four block orders with threads one at a
//! time: forward (row of blocks by row of blocks), column by column, by
//! anti-diagonals of blocks, and reversed. Every order that runs a block
//! after the blocks above it and to its left gives the right table; the
//! reversed order does not.

use crate::figures::{block_orders, SINGLE_BLOCK, SINGLE_SHAPE};
use crate::gpu::{CLOSED_FORM_VERSIONS, LARGE_TABLES};
use crate::{
    binomial_mod, diagonal_count, float_limits, simulate_single_launch, tiled_plan, tiled_steps, wavefront_plan,
    wrong_cells, Interleaving, CHAPTER, SOURCE_DP_CASES, TILED_TABLES,
};
use ktrav::{BlockOrder, Dim2, Shape};

/// Wrong cells of the single launch under each block order the figure
/// draws, threads one at a time, then with the forward order and threads in
/// lock-step.
pub fn single_launch_wrong(shape: Shape, block: Dim2) -> Vec<(&'static str, u64)> {
    let run = |order: &BlockOrder, interleaving| {
        let grid = simulate_single_launch(shape, block, order, interleaving).expect("a valid launch");
        wrong_cells(&grid, shape)
    };
    let mut out: Vec<(&'static str, u64)> =
        block_orders(shape.cols.div_ceil(block.x as u64), shape.rows.div_ceil(block.y as u64))
            .iter()
            .map(|(name, order)| (*name, run(order, Interleaving::OneAtATime)))
            .collect();
    out.push(("lockstep", run(&BlockOrder::Forward, Interleaving::LockStep)));
    out
}

/// Significant bits an integer needs.
fn bits(n: u128) -> u32 {
    128 - n.leading_zeros()
}

/// The bytes of a table of 8-byte cells just past 2^31 cells, in GB.
fn past_2_31_gb() -> String {
    format!("{:.0}", ((1u64 << 31) * 8) as f64 / 1e9)
}

/// The launches of the per-diagonal and the tiled plan for `shape`.
fn launches(shape: Shape, tile: u32) -> (u64, u64) {
    (diagonal_count(shape), tiled_plan(shape, tile).expect("a valid tile").len() as u64)
}

/// `shape` as the prose writes it: `1024×1024`.
fn times(shape: Shape) -> String {
    format!("{}×{}", shape.rows, shape.cols)
}

pub fn values() -> Vec<(&'static str, String)> {
    let f = float_limits();
    let (r, c, exact, _) = f.first_inexact;
    let (ir, ic) = f.first_infinite;
    let corner = |shape: Shape| binomial_mod(shape.rows + shape.cols - 2, shape.rows - 1).to_string();
    let (big, big_tile) = TILED_TABLES[0];
    let (huge, huge_tile) = TILED_TABLES[1];
    let (timed, timed_block, _) = LARGE_TABLES[0];
    let figure = Shape::new(crate::figures::ROWS, crate::figures::COLS);
    let source_tile = crate::figures::TILE;
    let mut v = vec![
        ("k7.walk.3x3", crate::sequence_3x3()),
        ("k7.float.inexact_diagonal", (r + c).to_string()),
        ("k7.float.inexact_cell", format!("({r}, {c})")),
        ("k7.float.inexact_binomial", format!("C({}, {r})", r + c)),
        ("k7.float.inexact_count", exact.to_string()),
        ("k7.float.inexact_bits", bits(exact).to_string()),
        ("k7.float.infinite_diagonal", (ir + ic).to_string()),
        ("k7.float.infinite_table", Shape::new(ir + 1, ic + 1).to_string()),
        ("k7.corner.5x5", corner(SOURCE_DP_CASES[0])),
        ("k7.corner.6x9", corner(SOURCE_DP_CASES[1])),
        ("k7.launches.5x5", diagonal_count(SOURCE_DP_CASES[0]).to_string()),
        ("k7.launches.6x9", diagonal_count(SOURCE_DP_CASES[1]).to_string()),
        ("k7.launches.1x8", diagonal_count(SOURCE_DP_CASES[3]).to_string()),
        ("k7.tiled.5x5", launches(SOURCE_DP_CASES[0], source_tile).1.to_string()),
        ("k7.big.shape", times(big)),
        ("k7.big.tile", format!("{big_tile}×{big_tile}")),
        ("k7.big.launches", launches(big, big_tile).0.to_string()),
        ("k7.big.tiled", launches(big, big_tile).1.to_string()),
        ("k7.big.binomial", format!("C({}, {})", big.rows + big.cols - 2, big.rows - 1)),
        ("k7.huge.shape", times(huge)),
        ("k7.huge.tile", format!("{huge_tile}×{huge_tile}")),
        ("k7.huge.launches", launches(huge, huge_tile).0.to_string()),
        ("k7.huge.tiled", launches(huge, huge_tile).1.to_string()),
        ("k7.huge.steps", tiled_steps(huge_tile).to_string()),
        ("k7.huge.block_threads", (huge_tile * huge_tile).to_string()),
        ("k7.figure.last_diagonal", (diagonal_count(figure) - 1).to_string()),
        ("k7.figure.launches", diagonal_count(figure).to_string()),
        ("k7.figure.tiled_launches", launches(figure, source_tile).1.to_string()),
        ("k7.timed.launches", wavefront_plan(timed, timed_block).expect("a valid plan").len().to_string()),
        ("k7.versions.count", CHAPTER.versions.len().to_string()),
        ("k7.versions.recurrence", (CHAPTER.versions.len() - CLOSED_FORM_VERSIONS.len()).to_string()),
        ("k7.past_2_31_gb", past_2_31_gb()),
        ("k7.single.shape", SINGLE_SHAPE.to_string()),
        ("k7.single.block", SINGLE_BLOCK.to_string()),
        ("k7.single.cells", SINGLE_SHAPE.elements().to_string()),
    ];
    for (name, wrong) in single_launch_wrong(SINGLE_SHAPE, SINGLE_BLOCK) {
        let key = match name {
            "forward" => "k7.single.forward_wrong",
            "column by column" => "k7.single.column_major_wrong",
            "anti-diagonal" => "k7.single.anti_diagonal_wrong",
            "reversed" => "k7.single.reversed_wrong",
            "lockstep" => "k7.single.lockstep_wrong",
            other => unreachable!("the single launch has no value for the order {other}"),
        };
        v.push((key, wrong.to_string()));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_that_finish_the_upper_and_left_blocks_first_are_right() {
        let wrong = single_launch_wrong(SINGLE_SHAPE, SINGLE_BLOCK);
        let get = |n: &str| wrong.iter().find(|(k, _)| *k == n).unwrap().1;
        assert_eq!([get("forward"), get("column by column"), get("anti-diagonal")], [0, 0, 0]);
        assert!(get("reversed") > 0 && get("lockstep") > 0);
    }

    #[test]
    fn the_float_limits_and_launch_counts_are_the_pages() {
        let get = |n: &str| values().into_iter().find(|(k, _)| *k == n).unwrap().1;
        assert_eq!((get("k7.float.inexact_diagonal"), get("k7.float.inexact_bits")), ("28".into(), "25".into()));
        assert_eq!((get("k7.huge.launches"), get("k7.huge.tiled")), ("2047".into(), "63".into()));
        assert_eq!(get("k7.timed.launches"), "8191");
    }

    #[test]
    fn a_changed_shape_changes_the_values() {
        let shown = single_launch_wrong(SINGLE_SHAPE, SINGLE_BLOCK);
        let other = single_launch_wrong(Shape::new(8, 8), SINGLE_BLOCK);
        assert_ne!(shown.iter().find(|(k, _)| *k == "reversed"), other.iter().find(|(k, _)| *k == "reversed"));
    }
}
