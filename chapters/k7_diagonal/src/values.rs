//! The numbers K.7's page quotes, computed here (see `book/values.txt`).
//!
//! The single launch is run under four block orders with threads one at a
//! time: forward (row of blocks by row of blocks), column by column, by
//! anti-diagonals of blocks, and reversed. Every order that runs a block
//! after the blocks above it and to its left gives the right table; the
//! reversed order does not.

use crate::{simulate_single_launch, wrong_cells, Interleaving};
use ktrav::{BlockOrder, Dim2, Shape};

/// The single-launch experiment's table and blocks, as the page shows it.
pub const SINGLE_SHAPE: Shape = Shape::new(16, 16);
pub const SINGLE_BLOCK: Dim2 = Dim2::new(4, 4);

/// The block orders of the single launch, each with its value name.
pub fn block_orders(shape: Shape, block: Dim2) -> Vec<(&'static str, BlockOrder)> {
    let (gx, gy) = (shape.cols.div_ceil(block.x as u64), shape.rows.div_ceil(block.y as u64));
    let column_major: Vec<u64> = (0..gx).flat_map(|bx| (0..gy).map(move |by| by * gx + bx)).collect();
    let mut anti_diagonal: Vec<(u64, u64)> = (0..gy).flat_map(|by| (0..gx).map(move |bx| (by, bx))).collect();
    anti_diagonal.sort_by_key(|&(by, bx)| (by + bx, by));
    vec![
        ("forward", BlockOrder::Forward),
        ("column_major", BlockOrder::Explicit(column_major)),
        ("anti_diagonal", BlockOrder::Explicit(anti_diagonal.into_iter().map(|(by, bx)| by * gx + bx).collect())),
        ("reversed", BlockOrder::Reverse),
    ]
}

/// Wrong cells of the single launch under each block order, threads one at
/// a time, then with the forward order and threads in lock-step.
pub fn single_launch_wrong(shape: Shape, block: Dim2) -> Vec<(&'static str, u64)> {
    let run = |order: &BlockOrder, interleaving| {
        let grid = simulate_single_launch(shape, block, order, interleaving).expect("a valid launch");
        wrong_cells(&grid, shape)
    };
    let mut out: Vec<(&'static str, u64)> =
        block_orders(shape, block).iter().map(|(name, order)| (*name, run(order, Interleaving::OneAtATime))).collect();
    out.push(("lockstep", run(&BlockOrder::Forward, Interleaving::LockStep)));
    out
}

pub fn values() -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("k7.single.shape", SINGLE_SHAPE.to_string()),
        ("k7.single.block", SINGLE_BLOCK.to_string()),
        ("k7.single.cells", SINGLE_SHAPE.elements().to_string()),
    ];
    for (name, wrong) in single_launch_wrong(SINGLE_SHAPE, SINGLE_BLOCK) {
        let key = match name {
            "forward" => "k7.single.forward_wrong",
            "column_major" => "k7.single.column_major_wrong",
            "anti_diagonal" => "k7.single.anti_diagonal_wrong",
            "reversed" => "k7.single.reversed_wrong",
            _ => "k7.single.lockstep_wrong",
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
        assert_eq!([get("forward"), get("column_major"), get("anti_diagonal")], [0, 0, 0]);
        assert!(get("reversed") > 0 && get("lockstep") > 0);
    }

    #[test]
    fn a_changed_shape_changes_the_values() {
        let shown = single_launch_wrong(SINGLE_SHAPE, SINGLE_BLOCK);
        let other = single_launch_wrong(Shape::new(8, 8), SINGLE_BLOCK);
        assert_ne!(shown.iter().find(|(k, _)| *k == "reversed"), other.iter().find(|(k, _)| *k == "reversed"));
    }
}
