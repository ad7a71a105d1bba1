//! The K.6 lab exercise `spiral-gather` on the simulator track: one thread
//! per output slot `to`, reading the input element of spiral rank `to`
//! (block 32 x 8, x over the columns). Given [`ring_start`] and
//! [`ring_containing`], the student walks the ring's four sides. The twins
//! mirror `exercises/k6_spiral/`; `cargo test -p k6_spiral exercises` runs
//! them under every schedule.

use crate::{ring_containing, ring_start};
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

// ANCHOR: starter
pub fn gather_starter(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem, ring_start, ring_containing);
    // TODO: this thread's output slot `to` (row-major, guarded); the ring
    // k = ring_containing(to, rows, cols); the offset along it,
    // to - ring_start(k, rows, cols), walked top, right side, bottom, left
    // side; then output[to] = input 0 at that (row, col).
}

pub const STARTER: Twin = Twin { name: "the starter", steps: 1, barriers_after: &[], shared_words: 0, body: gather_starter };
// ANCHOR_END: starter

// ANCHOR: solution
/// The (row, col) of spiral rank `rank`: the ring, then the side.
pub fn position(rank: u64, rows: u64, cols: u64) -> (u64, u64) {
    let k = ring_containing(rank, rows, cols);
    let offset = rank - ring_start(k, rows, cols);
    let (top, left, bottom, right) = (k, k, rows - 1 - k, cols - 1 - k);
    let (width, height) = (right - left + 1, bottom - top + 1);
    if offset < width {
        (top, left + offset) // the top side (all of a lone row)
    } else if offset < width + height - 1 {
        (top + offset - (width - 1), right) // the right side (all of a lone column)
    } else if offset < 2 * width + height - 2 {
        (bottom, right - (offset - (width - 1) - (height - 1))) // the bottom
    } else {
        (bottom - (offset - 2 * (width - 1) - (height - 1)), left) // the left side, upwards
    }
}

pub fn gather_solution(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && col < ctx.cols {
        let to = row * ctx.cols + col;
        let (r, c) = position(to, ctx.rows, ctx.cols);
        mem.write_f32(to as i64, mem.input(0, (r * ctx.cols + c) as i64));
    }
}

pub const SOLUTION: Twin = Twin { name: "the solution", body: gather_solution, ..STARTER };
// ANCHOR_END: solution

// ANCHOR: wrong
/// `wrong/wrong_side_order.cu`: top, right, then the LEFT side, then the bottom.
pub fn wrong_side_order(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    let (rows, cols) = (ctx.rows, ctx.cols);
    if row >= rows || col >= cols {
        return;
    }
    let to = row * cols + col;
    let k = ring_containing(to, rows, cols);
    let offset = to - ring_start(k, rows, cols);
    let (top, left, bottom, right) = (k, k, rows - 1 - k, cols - 1 - k);
    let (width, height) = (right - left + 1, bottom - top + 1);
    let (r, c) = if offset < width {
        (top, left + offset)
    } else if offset < width + height - 1 {
        (top + offset - (width - 1), right)
    } else if offset + 3 < width + 2 * height {
        (bottom - (offset - (width - 1) - (height - 1)), left) // the left side, too early
    } else {
        (bottom, right - (offset - (width - 1) - 2 * (height - 1)))
    };
    mem.write_f32(to as i64, mem.input(0, (r * cols + c) as i64));
}

/// (`wrong/int32_rank.cu` has no twin: it needs 2^31 elements.)
pub const WRONG: &[(Twin, &str)] = &[(Twin { name: "wrong_side_order", body: wrong_side_order, ..STARTER }, "wrong")];
// ANCHOR_END: wrong

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    ktrav::lab::simtrack::check_twin(ktrav::lab::simtrack::exercise("spiral-gather"), &WRONG[0].0).render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::{assert_track, check_twin, exercise};

    #[test]
    fn spiral_gather_solution_passes_and_every_wrong_twin_fails() {
        assert_track("spiral-gather", &SOLUTION, WRONG);
        assert!(!check_twin(exercise("spiral-gather"), &STARTER).passed());
    }
}
