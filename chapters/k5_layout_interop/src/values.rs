//! The numbers K.5's page quotes, computed here (see `book/values.txt`).

use crate::{first_warp, Axis, Pairing, WARP_BLOCK, WARP_SHAPE};
use ktrav::{Dim2, Shape, StorageOrder};

/// Sectors the first warp requests when x walks the contiguous axis and
/// when it walks the other one, on row-major data of `shape`.
pub fn first_warp_sectors(shape: Shape, block: Dim2) -> (u64, u64) {
    let along = first_warp(Pairing { order: StorageOrder::RowMajor, x_walks: Axis::Col }, shape, block).1;
    let across = first_warp(Pairing { order: StorageOrder::RowMajor, x_walks: Axis::Row }, shape, block).1;
    (along, across)
}

pub fn values() -> Vec<(&'static str, String)> {
    let (along, across) = first_warp_sectors(WARP_SHAPE, WARP_BLOCK);
    vec![
        ("k5.warp.rows", WARP_SHAPE.rows.to_string()),
        ("k5.warp.cols", WARP_SHAPE.cols.to_string()),
        ("k5.warp.contiguous_sectors", along.to_string()),
        ("k5.warp.strided_sectors", across.to_string()),
        ("k5.warp.ratio", (across / along).to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrower_block_changes_the_strided_count() {
        assert_ne!(first_warp_sectors(WARP_SHAPE, WARP_BLOCK).1, first_warp_sectors(WARP_SHAPE, Dim2::new(16, 8)).1);
    }
}
