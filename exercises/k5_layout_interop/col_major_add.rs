//! Exercise `col-major-add` on the simulator track: your Rust twin of
//! `col_major_add.cu`. Write the body, then check it, with no GPU, by
//!
//! ```text
//! cargo run -p k5_layout_interop -- sim-check col-major-add
//! ```
//!
//! The book's "Writing a twin" page says what `Ctx`, `Mem` and `Twin` hold.

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// One thread of the addition: x walks the rows (blocks of 32 x 8).
pub fn add_col_major(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem);
    // TODO: this thread's row (from x) and column (from y), both guarded,
    // and the column-major offset of that element in a (input 0), b
    // (input 1) and the output.
}

pub const TWIN: Twin =
    Twin { name: "col_major_add.rs", steps: 1, barriers_after: &[], shared_words: 0, body: add_col_major };
