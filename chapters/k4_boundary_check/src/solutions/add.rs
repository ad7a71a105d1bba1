//! The solution of `add`, in the form of the student's
//! `exercises/k4_boundary_check/add.rs`: put in its place, it passes.

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

pub fn add_checked(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && col < ctx.cols {
        let i = (row * ctx.cols + col) as i64;
        mem.write_f32(i, mem.input(0, i) + mem.input(1, i));
    }
}

pub const TWIN: Twin = Twin { name: "the solution", steps: 1, barriers_after: &[], shared_words: 0, body: add_checked };
