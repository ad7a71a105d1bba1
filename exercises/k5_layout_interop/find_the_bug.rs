//! Exercise `col-major-find-the-bug` on the simulator track: the Rust twin
//! of `find_the_bug.cu`, an addition that passes the source's 4x6 and the
//! warp table's 64x96 and is wrong. Find the shape it fails, fix it here,
//! then check it by
//!
//! ```text
//! cargo run -p k5_layout_interop -- sim-check col-major-find-the-bug
//! ```

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// The addition of `find_the_bug.cu`: a block found wholly inside the
/// matrix skips the guard.
fn add_unless_inside(ctx: &Ctx, inside: bool, mem: &mut Mem) {
    let (row, col) = (ctx.t.global_x(), ctx.t.global_y()); // x walks the rows
    if inside || (row < ctx.rows && col < ctx.cols) {
        let i = (col * ctx.rows + row) as i64; // column-major
        mem.write_f32(i, mem.input(0, i) + mem.input(1, i));
    }
}

/// Whether this thread's block lies wholly inside, x's extent compared with
/// `x_extent` and y's with `y_extent`.
fn block_inside(ctx: &Ctx, x_extent: u64, y_extent: u64) -> bool {
    let t = ctx.t;
    (t.block_idx.x as u64 + 1) * t.block_dim.x as u64 <= x_extent
        && (t.block_idx.y as u64 + 1) * t.block_dim.y as u64 <= y_extent
}

/// `find_the_bug.cu`: the blocks of x measured against the columns, those
/// of y against the rows.
pub fn inside_as_if_row_major(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    add_unless_inside(ctx, block_inside(ctx, ctx.cols, ctx.rows), mem)
}

pub const TWIN: Twin =
    Twin { name: "find the bug", steps: 1, barriers_after: &[], shared_words: 0, body: inside_as_if_row_major };
