//! The K.2 lab exercises on the simulator track: the tiled transpose with a
//! padded tile, for any shape (`transpose`), and the find-the-bug kernel
//! that passes the source's shapes (`find-the-bug`). Each twin is the `.cu`
//! kernel of `exercises/k2_transpose/` as numbered steps; the harness
//! (`ktrav::lab::simtrack`) runs one *round* of the grid-stride loop per
//! two steps, with a `__syncthreads()` after each step listed in
//! `barriers_after`. `cargo test -p k2_transpose exercises` checks the
//! solution and the wrong twins under 5 block orders times 3 thread
//! orders; `cargo run -p k2_transpose -- sim-check transpose` checks the
//! student's own file.

use ktrav::lab::simcheck::{self, SimExercise};
use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{input_value, Arg, Elem, Exercise, FailureKind, Launch};
use ktrav::{Dim2, Shape};

/// The tile's side (the kernels' own [`crate::TILE`]), and its padded row
/// length in shared memory.
pub const TILE: u64 = crate::TILE as u64;
pub const STRIDE: u64 = TILE + 1;

/// `transpose`: the tiled transpose with a padded tile, for any shape,
/// checked on the source's four shapes among others.
pub const TRANSPOSE_EXERCISE: Exercise = Exercise {
    id: "transpose",
    title: "a tiled transpose with a padded tile, for any shape",
    kernel: crate::TileLayout::Padded.kernel(),
    starter: "transpose.cu",
    args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
    elem: Elem::F32,
    launch: Launch::Covering { block: Dim2::new(crate::TILE, crate::TILE), x_walks_rows: false, grid_stride_y: true },
    source_shapes: || crate::SOURCE_CASES.iter().map(|c| c.shape).collect(),
    chapter_shapes: Vec::new,
    timing_shape: Shape::new(4096, 4096),
    expected: |shape| Box::new(move |i| input_value(0, crate::transposed_from(shape, i)).to_bits() as u64),
    twins: Twins { solution: SOLUTION, wrong: WRONG },
};

/// `find-the-bug`: a transpose that passes the source's shapes; the student
/// finds where it does not.
pub const FIND_THE_BUG_EXERCISE: Exercise = Exercise {
    id: "find-the-bug",
    title: "find the bug: a transpose that passes the source's shapes",
    starter: "find_the_bug.cu",
    twins: Twins { solution: SOLUTION, wrong: &[] },
    ..TRANSPOSE_EXERCISE
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[TRANSPOSE_EXERCISE, FIND_THE_BUG_EXERCISE];

/// The crate's solution of `transpose` (also the fix of `find-the-bug`),
/// in the form of the student's file.
#[path = "solutions/transpose.rs"]
pub mod solution;

use solution::transpose as transpose_solution;
pub const SOLUTION: Twin = solution::TWIN;

#[path = "../../../exercises/k2_transpose/find_the_bug.rs"]
pub mod student_find_the_bug;
/// The student's own files, beside the `.cu` starters: only `sim-check`
/// runs them, never the crate's tests.
#[path = "../../../exercises/k2_transpose/transpose.rs"]
pub mod student_transpose;

/// The exercises on the simulator track, the `Chapter` value's
/// `sim_exercises`.
pub const SIM_EXERCISES: &[SimExercise] = &[
    SimExercise {
        id: TRANSPOSE_EXERCISE.id,
        file: "exercises/k2_transpose/transpose.rs",
        solution: "chapters/k2_transpose/src/solutions/transpose.rs",
        check: || simcheck::report(&TRANSPOSE_EXERCISE, &student_transpose::TWIN),
    },
    SimExercise {
        id: FIND_THE_BUG_EXERCISE.id,
        file: "exercises/k2_transpose/find_the_bug.rs",
        solution: "chapters/k2_transpose/src/solutions/transpose.rs",
        check: || simcheck::report(&FIND_THE_BUG_EXERCISE, &student_find_the_bug::TWIN),
    },
];

/// What the given `exercises/k2_transpose/find_the_bug.rs` does, written
/// against the solution: the solution's body in the first round only (the
/// given file returns from every later round and takes its row of tiles
/// from `blockIdx.y` alone). The page's report runs this function, not the
/// file the student edits.
pub fn find_the_bug(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    if ctx.round > 0 {
        return; // one row of tiles per block
    }
    transpose_solution(ctx, step, tile, mem)
}

pub const FIND_THE_BUG: Twin = Twin {
    name: "find the bug",
    steps: 2,
    barriers_after: &[0, 1],
    shared_words: (TILE * STRIDE) as usize,
    body: find_the_bug,
};

// ANCHOR: wrong
/// `wrong/missing_syncthreads.cu`: no barrier between the load and the store.
pub const MISSING_SYNCTHREADS: Twin = Twin { name: "missing_syncthreads", barriers_after: &[1], ..SOLUTION };

/// `wrong/one_axis_guard.cu`: the load checks the input's rows only, and
/// the store the output's rows only.
pub fn one_axis_guard(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let (tx, ty, bx) = (t.thread_idx.x as u64, t.thread_idx.y as u64, t.block_idx.x as u64);
    let by = t.block_idx.y as u64 + ctx.round * t.grid_dim.y as u64;
    if by >= rows.div_ceil(TILE) {
        return;
    }
    match step {
        0 => {
            let (in_row, in_col) = (by * TILE + ty, bx * TILE + tx);
            if in_row < rows {
                tile[(ty * STRIDE + tx) as usize] = mem.input(0, (in_row * cols + in_col) as i64);
            }
        }
        _ => {
            let (out_row, out_col) = (bx * TILE + ty, by * TILE + tx);
            if out_row < cols {
                mem.write_f32((out_row * rows + out_col) as i64, tile[(tx * STRIDE + ty) as usize]);
            }
        }
    }
}

/// `wrong/tile_edge_off_by_one.cu`: `out_col <= rows` on the store.
pub fn tile_edge_off_by_one(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let by = t.block_idx.y as u64 + ctx.round * t.grid_dim.y as u64;
    if step == 0 || by >= rows.div_ceil(TILE) {
        return transpose_solution(ctx, step, tile, mem);
    }
    let (tx, ty) = (t.thread_idx.x as u64, t.thread_idx.y as u64);
    let (out_row, out_col) = (t.block_idx.x as u64 * TILE + ty, by * TILE + tx);
    if out_row < cols && out_col <= rows {
        mem.write_f32((out_row * rows + out_col) as i64, tile[(tx * STRIDE + ty) as usize]);
    }
}

/// `wrong/swapped_xy.cu` swaps the thread roles in its load (the input row
/// from `threadIdx.x`), so the tile comes out untransposed; this twin loads
/// right and reads the tile untransposed in its store, the same wrong values
/// wherever the `.cu` file's tile slots were filled.
pub fn swapped_xy(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let by = t.block_idx.y as u64 + ctx.round * t.grid_dim.y as u64;
    if step == 0 || by >= rows.div_ceil(TILE) {
        return transpose_solution(ctx, step, tile, mem);
    }
    let (tx, ty) = (t.thread_idx.x as u64, t.thread_idx.y as u64);
    let (out_row, out_col) = (t.block_idx.x as u64 * TILE + ty, by * TILE + tx);
    if out_row < cols && out_col < rows {
        mem.write_f32((out_row * rows + out_col) as i64, tile[(ty * STRIDE + tx) as usize]);
    }
}

/// `wrong/stale_whole_tile.cu`: whether the block's first tile is whole is
/// decided once, and its guards skipped in every round on that answer.
pub fn stale_whole_tile(ctx: &Ctx, step: usize, tile: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let (tx, ty, bx) = (t.thread_idx.x as u64, t.thread_idx.y as u64, t.block_idx.x as u64);
    let by = t.block_idx.y as u64 + ctx.round * t.grid_dim.y as u64;
    if by >= rows.div_ceil(TILE) {
        return;
    }
    let whole = (t.block_idx.y as u64 + 1) * TILE <= rows && (bx + 1) * TILE <= cols;
    match step {
        0 => {
            let (in_row, in_col) = (by * TILE + ty, bx * TILE + tx);
            if whole || (in_row < rows && in_col < cols) {
                tile[(ty * STRIDE + tx) as usize] = mem.input(0, (in_row * cols + in_col) as i64);
            }
        }
        _ => {
            let (out_row, out_col) = (bx * TILE + ty, by * TILE + tx);
            if whole || (out_row < cols && out_col < rows) {
                mem.write_f32((out_row * rows + out_col) as i64, tile[(tx * STRIDE + ty) as usize]);
            }
        }
    }
}

/// Every wrong twin, with the verdict its `.cu` file's `expect:` line names.
/// (`wrong/int32_index.cu` has no twin: its overflow needs 2^31 elements,
/// which only `check --large` on a GPU reaches.)
pub const WRONG: &[(Twin, FailureKind)] = &[
    (MISSING_SYNCTHREADS, FailureKind::Wrong),
    (Twin { name: "one_axis_guard", body: one_axis_guard, ..SOLUTION }, FailureKind::OutOfBounds),
    (Twin { name: "tile_edge_off_by_one", body: tile_edge_off_by_one, ..SOLUTION }, FailureKind::OutOfBounds),
    (Twin { name: "swapped_xy", body: swapped_xy, ..SOLUTION }, FailureKind::Wrong),
    (Twin { name: "stale_whole_tile", body: stale_whole_tile, ..SOLUTION }, FailureKind::Wrong),
];
// ANCHOR_END: wrong

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    check_twin(&TRANSPOSE_EXERCISE, &MISSING_SYNCTHREADS).render()
}

/// What the find-the-bug answer shows: the simulated check of its kernel.
pub fn find_the_bug_shown() -> String {
    check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG).render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::assert_track;

    #[test]
    fn every_solution_passes_and_every_wrong_twin_fails() {
        for ex in EXERCISES {
            assert_track(ex);
        }
    }

    /// The expected output is the plain transpose of the input, element by
    /// element.
    #[test]
    fn the_expected_output_is_the_plain_transpose() {
        for shape in [Shape::new(1, 1), Shape::new(4, 5), Shape::new(7, 5), Shape::new(1, 7), Shape::new(9, 1)] {
            let input =
                ktrav::Matrix::from_fn(shape, ktrav::StorageOrder::RowMajor, |r, c| input_value(0, r * shape.cols + c));
            let plain = crate::plain_transpose(&input);
            let expected = (TRANSPOSE_EXERCISE.expected)(shape);
            for (i, want) in plain.as_slice().iter().enumerate() {
                assert_eq!(expected(i as u64), want.to_bits() as u64, "{shape}, element {i}");
            }
        }
    }

    #[test]
    fn find_the_bug_fails_only_past_the_grid_y_limit() {
        // It fails exactly where the grid needs more rows of blocks than
        // the simulated gridDim.y limit: the source's shapes all pass.
        let c = check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG);
        for l in &c.lines {
            let past_limit = l.shape.rows.div_ceil(TILE) > ktrav::lab::simtrack::SIM_MAX_GRID_Y as u64;
            assert_eq!(l.failure.is_some(), past_limit, "{}", l.label);
        }
        assert!(c.lines.iter().any(|l| l.purpose == ktrav::lab::Purpose::PastGridY && l.failure.is_some()));
    }

    #[test]
    fn a_missing_barrier_shows_only_when_threads_do_not_run_in_lock_step() {
        let c = check_twin(&TRANSPOSE_EXERCISE, &MISSING_SYNCTHREADS);
        let failing = c.lines.iter().find(|l| l.failure.is_some()).expect("a shape fails");
        // 5 block orders x (forward, reversed) fail; lock-step hides the race.
        assert_eq!((failing.failed, failing.schedules), (10, 15));
    }
}
