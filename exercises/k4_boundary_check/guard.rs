//! Exercise `guard` on the simulator track: your Rust twin of `guard.cu`.
//! Write the body, then check it, with no GPU, by
//!
//! ```text
//! cargo run -p k4_boundary_check -- sim-check guard
//! ```
//!
//! The book's "Writing a twin" page says what `Ctx`, `Mem` and `Twin` hold.

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// One thread of the fill: x walks the columns (blocks of 32 x 8).
pub fn fill_checked(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem);
    // TODO: this thread's row and column, a guard, and the store of
    // (row * 1000 + col) as f32 at row * cols + col.
}

pub const TWIN: Twin = Twin { name: "guard.rs", steps: 1, barriers_after: &[], shared_words: 0, body: fill_checked };
