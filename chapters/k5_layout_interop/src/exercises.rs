//! The K.5 lab exercise `col-major-add` on the simulator track: `out = a +
//! b` on column-major data, the launch spreading x over the rows (block
//! 32 x 8) so that a warp reads a contiguous column. The twins mirror
//! `exercises/k5_layout_interop/`; `cargo test -p k5_layout_interop
//! exercises` runs them under every schedule.

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

// ANCHOR: starter
pub fn add_starter(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem);
    // TODO: this thread's row (from x) and column (from y), both guarded,
    // and the column-major offset of that element in a (input 0), b
    // (input 1) and the output.
}

pub const STARTER: Twin = Twin { name: "the starter", steps: 1, barriers_after: &[], shared_words: 0, body: add_starter };
// ANCHOR_END: starter

// ANCHOR: solution
pub fn add_solution(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_x(), ctx.t.global_y()); // x walks the rows
    if row < ctx.rows && col < ctx.cols {
        let i = (col * ctx.rows + row) as i64; // column-major
        mem.write_f32(i, mem.input(0, i) + mem.input(1, i));
    }
}

pub const SOLUTION: Twin = Twin { name: "the solution", body: add_solution, ..STARTER };
// ANCHOR_END: solution

// ANCHOR: wrong
/// `wrong/one_axis_guard.cu`: the row is guarded, the column is not.
pub fn one_axis_guard(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_x(), ctx.t.global_y());
    if row < ctx.rows {
        let i = (col * ctx.rows + row) as i64;
        mem.write_f32(i, mem.input(0, i) + mem.input(1, i));
    }
}

/// `wrong/swapped_xy.cu`: the row-major habit, x taken as the column.
pub fn swapped_xy(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && col < ctx.cols {
        let i = (col * ctx.rows + row) as i64;
        mem.write_f32(i, mem.input(0, i) + mem.input(1, i));
    }
}

pub const WRONG: &[(Twin, &str)] = &[
    (Twin { name: "one_axis_guard", body: one_axis_guard, ..STARTER }, "out of bounds"),
    (Twin { name: "swapped_xy", body: swapped_xy, ..STARTER }, "unwritten"),
];
// ANCHOR_END: wrong

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    ktrav::lab::simtrack::check_twin(ktrav::lab::simtrack::exercise("col-major-add"), &WRONG[1].0).render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::{assert_track, check_twin, exercise};

    #[test]
    fn col_major_add_solution_passes_and_every_wrong_twin_fails() {
        assert_track("col-major-add", &SOLUTION, WRONG);
        assert!(!check_twin(exercise("col-major-add"), &STARTER).passed());
    }
}
