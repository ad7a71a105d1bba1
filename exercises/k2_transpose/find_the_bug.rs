//! Exercise `find-the-bug` on the simulator track: the Rust twin of
//! `find_the_bug.cu`, a transpose that passes every shape of the source
//! and is wrong. Find the shape it fails, fix it here, then check it by
//!
//! ```text
//! cargo run -p k2_transpose -- sim-check find-the-bug
//! ```

use crate::exercises::{STRIDE, TILE};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// Passes every shape of the source; which shape does it fail?
pub fn find_the_bug(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    if ctx.round > 0 {
        return; // one row of tiles per block
    }
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let (tx, ty) = (t.thread_idx.x as u64, t.thread_idx.y as u64);
    let by = t.block_idx.y as u64;
    if by >= rows.div_ceil(TILE) {
        return;
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

pub const TWIN: Twin = Twin {
    name: "find the bug",
    steps: 2,
    barriers_after: &[0, 1],
    shared_words: (TILE * STRIDE) as usize,
    body: find_the_bug,
};
