//! Exercise `wavefront` on the simulator track: your Rust twin of
//! `wavefront.cu`. Write the body, then check it, with no GPU, by
//!
//! ```text
//! cargo run -p k7_diagonal -- sim-check wavefront
//! ```
//!
//! The book's "Writing a twin" page says what `Ctx`, `Mem` and `Twin` hold.

use crate::add_mod;
use crate::exercises::{row_max, row_min};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// One thread of one launch: a cell of anti-diagonal `ctx.diagonal`.
pub fn wavefront(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols, d) = (ctx.t, ctx.rows as i64, ctx.cols as i64, ctx.diagonal);
    let _ = (t, rows, cols, d, mem, add_mod, row_min, row_max);
    // TODO: this thread's row on diagonal d (row_min plus its global x),
    // turned away past row_max; its column d - row; and the cell's value:
    // 1 on the first row or column, else add_mod of the cells above and to
    // the left (both on diagonal d - 1), read with mem.read_u64 and written
    // with mem.write_u64.
}

pub const TWIN: Twin = Twin { name: "wavefront.rs", steps: 1, barriers_after: &[], shared_words: 0, body: wavefront };
