//! Exercise `transpose` on the simulator track: your Rust twin of
//! `transpose.cu`. Write the body (and set the `Twin`'s barriers), then
//! check it, with no GPU, by
//!
//! ```text
//! cargo run -p k2_transpose -- sim-check transpose
//! ```
//!
//! The book's "Writing a twin" page says what `Ctx`, `Mem` and `Twin` hold.

use crate::exercises::{STRIDE, TILE};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// Step 0 of a round copies this thread's input element into the tile;
/// step 1 writes the tile's transpose out. The block's row of tiles in
/// round `ctx.round` is `blockIdx.y + round * gridDim.y` (the grid-stride
/// loop over y: gridDim.y is capped, here at 3).
pub fn transpose(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, step, tile, mem);
    // TODO: step 0: if this round's row of tiles exists, copy the in-bounds
    // input element (row by * 32 + ty, column bx * 32 + tx) into
    // tile[ty * STRIDE + tx]. Step 1: write tile[tx * STRIDE + ty] to the
    // swapped position of the output (cols x rows), checked on both axes.
}

/// Two steps a round; `barriers_after` lists the steps followed by a
/// `__syncthreads()` (none yet).
pub const TWIN: Twin = Twin {
    name: "transpose.rs",
    steps: 2,
    barriers_after: &[],
    shared_words: (TILE * STRIDE) as usize,
    body: transpose,
};
