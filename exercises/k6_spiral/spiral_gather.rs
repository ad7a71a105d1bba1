//! Exercise `spiral-gather` on the simulator track: your Rust twin of
//! `spiral_gather.cu`. Write the body, then check it, with no GPU, by
//!
//! ```text
//! cargo run -p k6_spiral -- sim-check spiral-gather
//! ```
//!
//! The book's "Writing a twin" page says what `Ctx`, `Mem` and `Twin` hold.

use crate::{ring_containing, ring_start};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// One thread of the gather: x walks the columns (blocks of 32 x 8).
pub fn spiral_gather(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem, ring_start, ring_containing);
    // TODO: this thread's output slot `to` (row-major, guarded); the ring
    // k = ring_containing(to, rows, cols); the offset along it,
    // to - ring_start(k, rows, cols), walked top, right side, bottom, left
    // side; then output[to] = input 0 at that (row, col).
}

pub const TWIN: Twin =
    Twin { name: "spiral_gather.rs", steps: 1, barriers_after: &[], shared_words: 0, body: spiral_gather };
