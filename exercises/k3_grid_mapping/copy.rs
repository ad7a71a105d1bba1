//! Exercise `copy` on the simulator track: your Rust twin of `copy.cu`.
//! Write the body, then check it, with no GPU, by
//!
//! ```text
//! cargo run -p k3_grid_mapping -- sim-check copy
//! ```
//!
//! The book's "Writing a twin" page says what `Ctx`, `Mem` and `Twin` hold.

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// One thread of the copy: x walks the columns (blocks of 32 x 8).
pub fn copy(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem);
    // TODO: this thread's row and column, and the copy of element
    // row * cols + col from input 0 to the output, if it lies inside.
}

pub const TWIN: Twin = Twin { name: "copy.rs", steps: 1, barriers_after: &[], shared_words: 0, body: copy };
