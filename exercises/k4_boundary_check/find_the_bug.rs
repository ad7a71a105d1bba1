//! Exercise `guard-find-the-bug` on the simulator track: the Rust twin of
//! `find_the_bug.cu`, a fill that passes the source's 4x10 and is wrong.
//! Find the shape it fails, fix it here, then check it by
//!
//! ```text
//! cargo run -p k4_boundary_check -- sim-check guard-find-the-bug
//! ```

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// A fill that looks guarded on both axes.
pub fn block_column_guard(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && (ctx.t.thread_idx.x as u64) < ctx.cols {
        mem.write_f32((row * ctx.cols + col) as i64, (row * 1000 + col) as f32);
    }
}

pub const TWIN: Twin =
    Twin { name: "find the bug", steps: 1, barriers_after: &[], shared_words: 0, body: block_column_guard };
