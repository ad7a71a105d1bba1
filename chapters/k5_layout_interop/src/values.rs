//! The numbers K.5's page quotes, computed here (see `book/values.txt`).

use crate::{
    as_is_entries_right, constant_stride, first_warp, half_fix_refusal, walk, Axis, GemmError, Pairing, Slot, GEMM_K,
    GEMM_M, GEMM_N, SOURCE_SHAPE, WALK_AT, WARP_BLOCK, WARP_SHAPE,
};
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
    let walked = |order, axis| walk(order, SOURCE_SHAPE, axis, WALK_AT);
    let span = |w: &[u64]| format!("{} to {}", w[0], w[w.len() - 1]);
    let stride = |w: &[u64]| constant_stride(w).expect("an even walk").to_string();
    let (rm_row, cm_col) = (walked(StorageOrder::RowMajor, Axis::Col), walked(StorageOrder::ColMajor, Axis::Row));
    let (rm_col, cm_row) = (walked(StorageOrder::RowMajor, Axis::Row), walked(StorageOrder::ColMajor, Axis::Col));
    let as_is = as_is_entries_right(GEMM_M, GEMM_N, GEMM_K).expect("the as-is call is accepted");
    let Some(GemmError::BufferTooShort { slot: Slot::B, rows, cols, len, .. }) =
        half_fix_refusal(GEMM_M, GEMM_N, GEMM_K)
    else {
        panic!("the page explains the half fix's refusal as a second operand too short for its slot")
    };
    vec![
        ("k5.walk.row_major_row", span(&rm_row)),
        ("k5.walk.col_major_col", span(&cm_col)),
        ("k5.walk.row_major_col_stride", stride(&rm_col)),
        ("k5.walk.col_major_row_stride", stride(&cm_row)),
        ("k5.trap.shape", SOURCE_SHAPE.transposed().to_string()),
        ("k5.trap.in_place", crate::in_place_at_intended_shape(SOURCE_SHAPE).to_string()),
        ("k5.trap.elements", SOURCE_SHAPE.elements().to_string()),
        ("k5.warp.rows", WARP_SHAPE.rows.to_string()),
        ("k5.warp.cols", WARP_SHAPE.cols.to_string()),
        ("k5.warp.contiguous_sectors", along.to_string()),
        ("k5.warp.strided_sectors", across.to_string()),
        ("k5.warp.ratio", (across / along).to_string()),
        ("k5.gemm.as_is_right", as_is.0.to_string()),
        ("k5.gemm.entries", as_is.1.to_string()),
        ("k5.gemm.half_fix.slot_shape", format!("{rows}x{cols}")),
        ("k5.gemm.half_fix.a_elements", len.to_string()),
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
