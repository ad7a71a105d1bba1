//! The K.4 lab exercises on the simulator track, both guarded on both axes
//! (block 32 x 8, x over the columns): `guard` fills every element with
//! `row * 1000 + col`; `add` writes `out = a + b`. The twins mirror
//! `exercises/k4_boundary_check/`; `cargo test -p k4_boundary_check
//! exercises` runs the solutions and the wrong twins under every schedule,
//! and `cargo run -p k4_boundary_check -- sim-check guard` (or `add`) the
//! student's own file.

use ktrav::lab::simcheck::{self, SimExercise};
use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{input_value, Arg, Elem, Exercise, FailureKind, Launch};
use ktrav::{Dim2, Shape};

/// `guard`: the chapter's fill with both axes guarded, checked on the
/// source's 4x10 among others.
pub const GUARD_EXERCISE: Exercise = Exercise {
    id: "guard",
    title: "a fill guarded on both axes",
    kernel: "fill_checked",
    starter: "guard.cu",
    args: &[Arg::Out, Arg::Rows64, Arg::Cols64],
    elem: Elem::F32,
    launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
    source_shapes: || vec![crate::SOURCE_SHAPE],
    chapter_shapes: Vec::new,
    timing_shape: Shape::new(4096, 4096),
    expected: |shape| Box::new(move |i| crate::marker(i / shape.cols, i % shape.cols).to_bits() as u64),
    twins: Twins { solution: SOLUTION, wrong: WRONG },
};

/// `add`: the chapter's addition with both axes guarded, checked on the
/// source's 4x10 among others.
pub const ADD_EXERCISE: Exercise = Exercise {
    id: "add",
    title: "an addition guarded on both axes",
    kernel: "add_checked",
    starter: "add.cu",
    args: &[Arg::Out, Arg::Input(0), Arg::Input(1), Arg::Rows64, Arg::Cols64],
    expected: |_| Box::new(|i| (input_value(0, i) + input_value(1, i)).to_bits() as u64),
    twins: Twins { solution: ADD_SOLUTION, wrong: ADD_WRONG },
    ..GUARD_EXERCISE
};

/// `guard-find-the-bug`: a fill that passes the source's 4x10; the student
/// finds the shape where it does not, and fixes it.
pub const FIND_THE_BUG_EXERCISE: Exercise = Exercise {
    id: "guard-find-the-bug",
    title: "find the bug: a fill that passes the source's 4x10",
    starter: "find_the_bug.cu",
    twins: Twins { solution: SOLUTION, wrong: &[] },
    ..GUARD_EXERCISE
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[GUARD_EXERCISE, ADD_EXERCISE, FIND_THE_BUG_EXERCISE];

/// The crate's solution of `guard` (also the fix of `guard-find-the-bug`),
/// in the form of the student's file.
#[path = "solutions/guard.rs"]
pub mod solution;

pub const SOLUTION: Twin = solution::TWIN;

/// The crate's solution of `add`, in the form of the student's file.
#[path = "solutions/add.rs"]
pub mod add_solution;

pub const ADD_SOLUTION: Twin = add_solution::TWIN;

#[path = "../../../exercises/k4_boundary_check/add.rs"]
pub mod student_add;
#[path = "../../../exercises/k4_boundary_check/find_the_bug.rs"]
pub mod student_find_the_bug;
/// The student's own files, beside the `.cu` starters: only `sim-check`
/// runs them, never the crate's tests.
#[path = "../../../exercises/k4_boundary_check/guard.rs"]
pub mod student_guard;

/// The exercises on the simulator track, the `Chapter` value's
/// `sim_exercises`: one verdict each.
pub const SIM_EXERCISES: &[SimExercise] = &[
    SimExercise {
        id: GUARD_EXERCISE.id,
        file: "exercises/k4_boundary_check/guard.rs",
        solution: "chapters/k4_boundary_check/src/solutions/guard.rs",
        check: || simcheck::report(&GUARD_EXERCISE, &student_guard::TWIN),
    },
    SimExercise {
        id: ADD_EXERCISE.id,
        file: "exercises/k4_boundary_check/add.rs",
        solution: "chapters/k4_boundary_check/src/solutions/add.rs",
        check: || simcheck::report(&ADD_EXERCISE, &student_add::TWIN),
    },
    SimExercise {
        id: FIND_THE_BUG_EXERCISE.id,
        file: "exercises/k4_boundary_check/find_the_bug.rs",
        solution: "chapters/k4_boundary_check/src/solutions/guard.rs",
        check: || simcheck::report(&FIND_THE_BUG_EXERCISE, &student_find_the_bug::TWIN),
    },
];

// ANCHOR: wrong
// ANCHOR: one_axis_guard
/// `wrong/one_axis_guard.cu` (the chapter's `fill_row_only_checked`).
pub fn one_axis_guard(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows {
        mem.write_f32((row * ctx.cols + col) as i64, (row * 1000 + col) as f32);
    }
}
// ANCHOR_END: one_axis_guard

/// (`wrong/int32_index.cu` and `wrong/uint32_index.cu` have no twin: they
/// need 2^31 and 2^32 elements.)
pub const WRONG: &[(Twin, FailureKind)] =
    &[(Twin { name: "one_axis_guard", body: one_axis_guard, ..SOLUTION }, FailureKind::OutOfBounds)];
// ANCHOR_END: wrong

// ANCHOR: add_wrong
/// `wrong/add_one_axis_guard.cu` (the chapter's `add_row_only_checked`):
/// its strays inside the matrix store the right sum; those whose flat
/// index runs past the last cell (the last row's, at least) store past the
/// end of the output.
pub fn add_one_axis_guard(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows {
        let i = (row * ctx.cols + col) as i64;
        mem.write_f32(i, mem.input(0, i) + mem.input(1, i));
    }
}

pub const ADD_WRONG: &[(Twin, FailureKind)] =
    &[(Twin { name: "add_one_axis_guard", body: add_one_axis_guard, ..SOLUTION }, FailureKind::OutOfBounds)];
// ANCHOR_END: add_wrong

// ANCHOR: find_the_bug
/// `find_the_bug.cu`: the column half of the guard tests `threadIdx.x`, the
/// column inside the block, instead of the column in the matrix.
pub fn block_column_guard(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && (ctx.t.thread_idx.x as u64) < ctx.cols {
        mem.write_f32((row * ctx.cols + col) as i64, (row * 1000 + col) as f32);
    }
}

/// Its fix is the solution: `col < cols`.
pub const FIND_THE_BUG: Twin = Twin { name: "find the bug", body: block_column_guard, ..SOLUTION };
// ANCHOR_END: find_the_bug

/// What the find-the-bug answer shows: the simulated check of its kernel.
pub fn find_the_bug_shown() -> String {
    check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG).render()
}

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    check_twin(&GUARD_EXERCISE, &WRONG[0].0).render()
}

/// What the exercise page shows for `add`: its wrong twin's simulated check.
pub fn add_shown() -> String {
    check_twin(&ADD_EXERCISE, &ADD_WRONG[0].0).render()
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

    /// Where the find-the-bug fill fails: where the matrix is wider than
    /// one block (so `threadIdx.x < cols` holds for every thread) and its
    /// last block sticks out past the columns.
    fn find_the_bug_fails_on(shape: Shape) -> bool {
        let (cfg, _) = ktrav::lab::launches(&FIND_THE_BUG_EXERCISE, shape).unwrap()[0];
        let bx = cfg.block.x as u64;
        shape.cols > bx && !shape.cols.is_multiple_of(bx)
    }

    #[test]
    fn find_the_bug_passes_the_source_and_fails_on_wide_ragged_shapes_only() {
        let c = check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG);
        for l in &c.lines {
            assert_eq!(l.failure.is_some(), find_the_bug_fails_on(l.shape), "{}", l.label);
            // The last row's strays always land past the end of the output.
            if let Some((_, v)) = &l.failure {
                assert!(v.kinds().contains(&FailureKind::OutOfBounds), "{}: {v:?}", l.label);
            }
        }
        assert!(c.lines.iter().filter(|l| l.purpose == ktrav::lab::Purpose::Source).all(|l| l.failure.is_none()));
        assert!(!c.passed());
    }

    /// The GPU's public battery: the source's shape passes and some other
    /// shape fails with writes out of bounds, as the starter's `expect:`
    /// line says, under any block order.
    #[test]
    fn find_the_bug_fails_some_shape_of_the_public_battery() {
        let battery = ktrav::lab::battery(&FIND_THE_BUG_EXERCISE, false);
        assert!(battery.iter().any(|c| find_the_bug_fails_on(c.shape)));
        let once =
            ktrav::lab::simtrack::Schedule { blocks: ktrav::BlockOrder::Reverse, threads: ktrav::ThreadOrder::Forward };
        for c in battery.iter().filter(|c| c.shape.elements() <= 1 << 21) {
            let v = ktrav::lab::simtrack::run(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG, c.shape, &once);
            assert_eq!(!v.passed(), find_the_bug_fails_on(c.shape), "{}: {v:?}", c.label);
            assert!(v.passed() || v.kinds().contains(&FailureKind::OutOfBounds), "{}: {v:?}", c.label);
        }
    }

    /// The expected sum is what the chapter's own fully guarded addition
    /// leaves in the simulator, given the exercise's inputs.
    #[test]
    fn the_expected_sum_is_the_simulated_add_checked() {
        for (shape, block) in [(crate::SOURCE_SHAPE, crate::SOURCE_BLOCK), (crate::LARGE_SHAPE, crate::LARGE_BLOCK)] {
            let plan = crate::launch_plan(shape, block).unwrap();
            let input = |k| crate::PaddedBuffer::new(&plan, |r, c| input_value(k, r * shape.cols + c));
            let (a, b) = (input(0), input(1));
            let mut out = crate::PaddedBuffer::new(&plan, |_, _| 0.0);
            crate::run(&plan, &ktrav::BlockOrder::Reverse, &mut out, |t, out| {
                crate::add_checked(t, out, a.as_slice(), b.as_slice(), shape.rows, shape.cols)
            });
            let expected = (ADD_EXERCISE.expected)(shape);
            for i in 0..shape.elements() {
                assert_eq!(expected(i), out.as_slice()[i as usize].to_bits() as u64, "{shape}, element {i}");
            }
        }
    }

    /// The expected fill is what the chapter's own fully guarded kernel
    /// leaves in the simulator.
    #[test]
    fn the_expected_fill_is_the_simulated_fill_checked() {
        for (shape, block) in [(crate::SOURCE_SHAPE, crate::SOURCE_BLOCK), (crate::LARGE_SHAPE, crate::LARGE_BLOCK)] {
            let plan = crate::launch_plan(shape, block).unwrap();
            let out = crate::run_fill(&plan, &ktrav::BlockOrder::Forward, crate::Fill::Checked);
            let expected = (GUARD_EXERCISE.expected)(shape);
            for i in 0..shape.elements() {
                assert_eq!(expected(i), out.as_slice()[i as usize].to_bits() as u64, "{shape}, element {i}");
            }
        }
    }
}
