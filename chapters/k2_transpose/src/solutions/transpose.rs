//! The solution of `transpose` (and the fix of `find-the-bug`), in the
//! form of the student's `exercises/k2_transpose/transpose.rs`: put in its
//! place, or in `find_the_bug.rs`'s, it passes.

use crate::exercises::{STRIDE, TILE};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

pub fn transpose(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let (tx, ty) = (t.thread_idx.x as u64, t.thread_idx.y as u64);
    let by = t.block_idx.y as u64 + ctx.round * t.grid_dim.y as u64;
    if by >= rows.div_ceil(TILE) {
        return; // this block has no row of tiles in this round
    }
    match step {
        0 => {
            let (in_row, in_col) = (by * TILE + ty, t.block_idx.x as u64 * TILE + tx);
            if in_row < rows && in_col < cols {
                tile[(ty * STRIDE + tx) as usize] = mem.input(0, (in_row * cols + in_col) as i64);
            }
        }
        _ => {
            let (out_row, out_col) = (t.block_idx.x as u64 * TILE + ty, by * TILE + tx);
            if out_row < cols && out_col < rows {
                mem.write_f32((out_row * rows + out_col) as i64, tile[(tx * STRIDE + ty) as usize]);
            }
        }
    }
}

/// A barrier after the load (every element is in the tile before any is
/// read back) and after the store (no thread refills the tile while
/// another still reads it).
pub const TWIN: Twin = Twin {
    name: "the solution",
    steps: 2,
    barriers_after: &[0, 1],
    shared_words: (TILE * STRIDE) as usize,
    body: transpose,
};
