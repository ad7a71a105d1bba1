//! Exercise `copy-find-the-bug` on the simulator track: the Rust twin of
//! `find_the_bug.cu`, a copy that passes the source's four cases and is
//! wrong. Find the shape it fails, fix it here, then check it by
//!
//! ```text
//! cargo run -p k3_grid_mapping -- sim-check copy-find-the-bug
//! ```

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// x walks whichever axis is longer. The grid is sized for x over the
/// columns, whatever the kernel decides.
pub fn longer_axis_on_x(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (x, y) = (ctx.t.global_x(), ctx.t.global_y());
    let tall = ctx.rows > ctx.cols;
    let (row, col) = if tall { (x, y) } else { (y, x) };
    if row < ctx.rows && col < ctx.cols {
        let i = (row * ctx.cols + col) as i64;
        mem.write_f32(i, mem.input(0, i));
    }
}

pub const TWIN: Twin =
    Twin { name: "find the bug", steps: 1, barriers_after: &[], shared_words: 0, body: longer_axis_on_x };
