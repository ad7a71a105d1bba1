//! Exercise `wavefront-find-the-bug` on the simulator track: the Rust twin
//! of `find_the_bug.cu`, a wavefront step that matches the source's five
//! tables and is wrong. Find the shape it fails, fix it here, then check
//! it by
//!
//! ```text
//! cargo run -p k7_diagonal -- sim-check wavefront-find-the-bug
//! ```

use crate::exercises::{row_max, row_min};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// One thread of one launch: a cell of anti-diagonal `ctx.diagonal`.
pub fn unreduced_sum(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (rows, cols, d) = (ctx.rows as i64, ctx.cols as i64, ctx.diagonal);
    let row = row_min(d, cols) + ctx.t.global_x() as i64;
    if row > row_max(d, rows) {
        return;
    }
    let col = d - row;
    let at = row * cols + col;
    let value = if row == 0 || col == 0 { 1 } else { mem.read_u64(at - cols).wrapping_add(mem.read_u64(at - 1)) };
    mem.write_u64(at, value);
}

pub const TWIN: Twin =
    Twin { name: "find the bug", steps: 1, barriers_after: &[], shared_words: 0, body: unreduced_sum };
