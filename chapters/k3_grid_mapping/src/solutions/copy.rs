//! The solution of `copy`, in the form of the student's
//! `exercises/k3_grid_mapping/copy.rs`: put in its place, it passes.

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

pub fn copy(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let (row, col) = (t.global_y(), t.global_x()); // x walks the columns
    if row < rows && col < cols {
        let i = (row * cols + col) as i64;
        mem.write_f32(i, mem.input(0, i));
    }
}

pub const TWIN: Twin = Twin { name: "the solution", steps: 1, barriers_after: &[], shared_words: 0, body: copy };
