//! The K.4 lab exercise `guard` on the simulator track: fill every element
//! with `row * 1000 + col`, guarded on both axes (block 32 x 8, x over the
//! columns). The twins mirror `exercises/k4_boundary_check/`; `cargo test
//! -p k4_boundary_check exercises` runs them under every schedule.

use ktrav::lab::simtrack::{Ctx, Mem, Twin};

// ANCHOR: starter
pub fn guard_starter(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem);
    // TODO: this thread's row and column, a guard, and the store of
    // (row * 1000 + col) as f32 at row * cols + col.
}

pub const STARTER: Twin = Twin { name: "the starter", steps: 1, barriers_after: &[], shared_words: 0, body: guard_starter };
// ANCHOR_END: starter

// ANCHOR: solution
pub fn guard_solution(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && col < ctx.cols {
        mem.write_f32((row * ctx.cols + col) as i64, (row * 1000 + col) as f32);
    }
}

pub const SOLUTION: Twin = Twin { name: "the solution", body: guard_solution, ..STARTER };
// ANCHOR_END: solution

// ANCHOR: wrong
/// `wrong/one_axis_guard.cu` (the chapter's `fill_row_only_checked`).
pub fn one_axis_guard(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows {
        mem.write_f32((row * ctx.cols + col) as i64, (row * 1000 + col) as f32);
    }
}

/// (`wrong/int32_index.cu` has no twin: it needs 2^31 elements.)
pub const WRONG: &[(Twin, &str)] = &[(Twin { name: "one_axis_guard", body: one_axis_guard, ..STARTER }, "out of bounds")];
// ANCHOR_END: wrong

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    ktrav::lab::simtrack::check_twin(ktrav::lab::simtrack::exercise("guard"), &WRONG[0].0).render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::{assert_track, check_twin, exercise};

    #[test]
    fn guard_solution_passes_and_every_wrong_twin_fails() {
        assert_track("guard", &SOLUTION, WRONG);
        assert!(!check_twin(exercise("guard"), &STARTER).passed());
    }
}
