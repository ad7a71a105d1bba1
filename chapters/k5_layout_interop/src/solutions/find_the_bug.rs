//! The fix of `col-major-find-the-bug`, in the form of the student's
//! `exercises/k5_layout_interop/find_the_bug.rs`: put in its place, it
//! passes.

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

/// The fix: x's blocks against the rows, the axis x walks.
pub fn inside_fixed(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    add_unless_inside(ctx, block_inside(ctx, ctx.rows, ctx.cols), mem)
}

pub const TWIN: Twin =
    Twin { name: "find the bug, fixed", steps: 1, barriers_after: &[], shared_words: 0, body: inside_fixed };
