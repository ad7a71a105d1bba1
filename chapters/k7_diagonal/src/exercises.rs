//! The K.7 lab exercise `wavefront` on the simulator track: one launch per
//! anti-diagonal `d` (a 1D grid of 256-thread blocks covering it), each
//! thread filling one cell of the lattice-path table from its two
//! neighbours on diagonal `d - 1`. The twins mirror
//! `exercises/k7_diagonal/`; `cargo test -p k7_diagonal exercises` runs
//! them under every schedule, lock-step threads included.

use crate::MODULUS;
use ktrav::lab::simtrack::{Ctx, Mem, Twin};

/// `(a + b) mod 2^61 - 1` for residues, as the `.cu` writes it: 64-bit
/// wrap-around arithmetic, so garbage read from an unwritten cell gives a
/// wrong value, not a panic.
pub fn add_mod(a: u64, b: u64) -> u64 {
    let sum = a.wrapping_add(b);
    if sum >= MODULUS { sum.wrapping_sub(MODULUS) } else { sum }
}

/// The first and last rows of diagonal `d` in a rows x cols table.
pub fn row_min(d: i64, cols: i64) -> i64 {
    (d - (cols - 1)).max(0)
}
pub fn row_max(d: i64, rows: i64) -> i64 {
    d.min(rows - 1)
}

// ANCHOR: starter
pub fn wavefront_starter(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols, d) = (ctx.t, ctx.rows as i64, ctx.cols as i64, ctx.diagonal);
    let _ = (t, rows, cols, d, mem);
    // TODO: this thread's row on diagonal d (row_min plus its global x),
    // turned away past row_max; its column d - row; and the cell's value:
    // 1 on the first row or column, else add_mod of the cells above and to
    // the left (both on diagonal d - 1), read with mem.read_u64 and written
    // with mem.write_u64.
}

pub const STARTER: Twin = Twin { name: "the starter", steps: 1, barriers_after: &[], shared_words: 0, body: wavefront_starter };
// ANCHOR_END: starter

// ANCHOR: solution
pub fn wavefront_solution(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (rows, cols, d) = (ctx.rows as i64, ctx.cols as i64, ctx.diagonal);
    let row = row_min(d, cols) + ctx.t.global_x() as i64;
    if row > row_max(d, rows) {
        return; // a spare thread of the last block
    }
    let col = d - row;
    let at = row * cols + col;
    let value = if row == 0 || col == 0 { 1 } else { add_mod(mem.read_u64(at - cols), mem.read_u64(at - 1)) };
    mem.write_u64(at, value);
}

pub const SOLUTION: Twin = Twin { name: "the solution", body: wavefront_solution, ..STARTER };
// ANCHOR_END: solution

// ANCHOR: wrong
/// `wrong/reads_current_diagonal.cu`: above and above-right, the latter on
/// diagonal `d`, being written by another thread of the same launch.
pub fn reads_current_diagonal(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (rows, cols, d) = (ctx.rows as i64, ctx.cols as i64, ctx.diagonal);
    let row = row_min(d, cols) + ctx.t.global_x() as i64;
    if row > row_max(d, rows) {
        return;
    }
    let col = d - row;
    let at = row * cols + col;
    let value = if row == 0 || col == 0 { 1 } else { add_mod(mem.read_u64(at - cols), mem.read_u64(at - cols + 1)) };
    mem.write_u64(at, value);
}

/// `wrong/no_boundary_check.cu`: no check against the diagonal's last row.
pub fn no_boundary_check(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (cols, d) = (ctx.cols as i64, ctx.diagonal);
    let row = row_min(d, cols) + ctx.t.global_x() as i64;
    let col = d - row;
    let at = row * cols + col;
    let value = if row == 0 || col == 0 { 1 } else { add_mod(mem.read_u64(at - cols), mem.read_u64(at - 1)) };
    mem.write_u64(at, value);
}

pub const WRONG: &[(Twin, &str)] = &[
    (Twin { name: "reads_current_diagonal", body: reads_current_diagonal, ..STARTER }, "wrong"),
    (Twin { name: "no_boundary_check", body: no_boundary_check, ..STARTER }, "out of bounds"),
];
// ANCHOR_END: wrong

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    ktrav::lab::simtrack::check_twin(ktrav::lab::simtrack::exercise("wavefront"), &WRONG[0].0).render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::{assert_track, check_twin, exercise};

    #[test]
    fn wavefront_solution_passes_and_every_wrong_twin_fails() {
        assert_track("wavefront", &SOLUTION, WRONG);
        assert!(!check_twin(exercise("wavefront"), &STARTER).passed());
    }
}
