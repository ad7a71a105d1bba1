//! The K.3 lab exercises on the simulator track: a 2D copy whose launch
//! spreads x over the columns (block 32 x 8), written by the student
//! (`copy`) or given with a bug that the source's cases do not show
//! (`copy-find-the-bug`). The twins mirror `exercises/k3_grid_mapping/`;
//! `cargo test -p k3_grid_mapping exercises` runs the solution and the
//! wrong twins under 5 block orders times 3 thread orders, and
//! `cargo run -p k3_grid_mapping -- sim-check copy` the student's own file.

use ktrav::lab::simcheck::{self, SimExercise};
use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{input_value, Arg, Elem, Exercise, FailureKind, Launch};
use ktrav::{Dim2, Shape};

/// `copy`: a 2D copy with x walking the columns, checked on the source's
/// four cases among others.
pub const COPY_EXERCISE: Exercise = Exercise {
    id: "copy",
    title: "a 2D copy with x walking columns",
    kernel: crate::Mapping::XToCol.kernel(),
    starter: "copy.cu",
    args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
    elem: Elem::F32,
    launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
    source_shapes: || crate::SOURCE_CASES.iter().map(|c| c.shape).collect(),
    chapter_shapes: Vec::new,
    timing_shape: Shape::new(4096, 4096),
    expected: |_| Box::new(|i| input_value(0, i).to_bits() as u64),
    twins: Twins { solution: SOLUTION, wrong: WRONG },
};

/// `copy-find-the-bug`: a copy that passes the source's four cases; the
/// student finds the shape where it does not, and fixes it.
pub const FIND_THE_BUG_EXERCISE: Exercise = Exercise {
    id: "copy-find-the-bug",
    title: "find the bug: a copy that passes the source's cases",
    starter: "find_the_bug.cu",
    twins: Twins { solution: SOLUTION, wrong: &[] },
    ..COPY_EXERCISE
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[COPY_EXERCISE, FIND_THE_BUG_EXERCISE];

/// The crate's solution of `copy` (also the fix of `copy-find-the-bug`),
/// in the form of the student's file.
#[path = "solutions/copy.rs"]
pub mod solution;

pub const SOLUTION: Twin = solution::TWIN;

/// The student's own files, beside the `.cu` starters: only `sim-check`
/// runs them, never the crate's tests.
#[path = "../../../exercises/k3_grid_mapping/copy.rs"]
pub mod student_copy;
#[path = "../../../exercises/k3_grid_mapping/find_the_bug.rs"]
pub mod student_find_the_bug;

/// The exercises on the simulator track, the `Chapter` value's
/// `sim_exercises`.
pub const SIM_EXERCISES: &[SimExercise] = &[
    SimExercise {
        id: COPY_EXERCISE.id,
        file: "exercises/k3_grid_mapping/copy.rs",
        solution: "chapters/k3_grid_mapping/src/solutions/copy.rs",
        check: || simcheck::report(&COPY_EXERCISE, &student_copy::TWIN),
    },
    SimExercise {
        id: FIND_THE_BUG_EXERCISE.id,
        file: "exercises/k3_grid_mapping/find_the_bug.rs",
        solution: "chapters/k3_grid_mapping/src/solutions/copy.rs",
        check: || simcheck::report(&FIND_THE_BUG_EXERCISE, &student_find_the_bug::TWIN),
    },
];

// ANCHOR: wrong
/// `wrong/one_axis_guard.cu`: the row is guarded, the column is not.
pub fn one_axis_guard(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows {
        let i = (row * ctx.cols + col) as i64;
        mem.write_f32(i, mem.input(0, i));
    }
}

/// `wrong/swapped_xy.cu`: x taken as the row.
pub fn swapped_xy(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_x(), ctx.t.global_y());
    if row < ctx.rows && col < ctx.cols {
        let i = (row * ctx.cols + col) as i64;
        mem.write_f32(i, mem.input(0, i));
    }
}

/// `wrong/write_past_end.cu`: `col <= cols`.
pub fn write_past_end(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && col <= ctx.cols {
        let i = (row * ctx.cols + col) as i64;
        mem.write_f32(i, mem.input(0, i));
    }
}

pub const WRONG: &[(Twin, FailureKind)] = &[
    (Twin { name: "one_axis_guard", body: one_axis_guard, ..SOLUTION }, FailureKind::OutOfBounds),
    (Twin { name: "swapped_xy", body: swapped_xy, ..SOLUTION }, FailureKind::Unwritten),
    (Twin { name: "write_past_end", body: write_past_end, ..SOLUTION }, FailureKind::OutOfBounds),
];
// ANCHOR_END: wrong

// ANCHOR: find_the_bug
/// `find_the_bug.cu`: x walks whichever axis is longer. The grid is sized
/// for x over the columns, whatever the kernel decides.
pub fn longer_axis_on_x(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (x, y) = (ctx.t.global_x(), ctx.t.global_y());
    let tall = ctx.rows > ctx.cols;
    let (row, col) = if tall { (x, y) } else { (y, x) };
    if row < ctx.rows && col < ctx.cols {
        let i = (row * ctx.cols + col) as i64;
        mem.write_f32(i, mem.input(0, i));
    }
}

/// Its fix is the solution: x walks the columns on every shape.
pub const FIND_THE_BUG: Twin = Twin { name: "find the bug", body: longer_axis_on_x, ..SOLUTION };
// ANCHOR_END: find_the_bug

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    check_twin(&COPY_EXERCISE, &WRONG[0].0).render()
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

    /// Where the find-the-bug copy fails: on a matrix taller than wide
    /// whose rows outnumber the threads the grid lays along x, a grid sized
    /// for x over the columns.
    fn find_the_bug_fails_on(shape: Shape) -> bool {
        let (cfg, _) = ktrav::lab::launches(&FIND_THE_BUG_EXERCISE, shape).unwrap()[0];
        shape.rows > shape.cols && shape.rows > cfg.grid.x as u64 * cfg.block.x as u64
    }

    #[test]
    fn find_the_bug_passes_the_source_and_fails_on_tall_shapes_only() {
        let c = check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG);
        for l in &c.lines {
            assert_eq!(l.failure.is_some(), find_the_bug_fails_on(l.shape), "{}", l.label);
        }
        assert!(c.lines.iter().filter(|l| l.purpose == ktrav::lab::Purpose::Source).all(|l| l.failure.is_none()));
        assert_eq!(c.kinds(), [FailureKind::Unwritten]);
        assert!(!c.passed());
    }

    /// The GPU's public battery: every source shape passes and some other
    /// shape fails, as the starter's `expect:` line says. The shapes of up
    /// to a few million elements are run through the simulator once each.
    #[test]
    fn find_the_bug_fails_some_shape_of_the_public_battery() {
        let battery = ktrav::lab::battery(&FIND_THE_BUG_EXERCISE, false);
        assert!(battery.iter().any(|c| find_the_bug_fails_on(c.shape)));
        let once =
            ktrav::lab::simtrack::Schedule { blocks: ktrav::BlockOrder::Forward, threads: ktrav::ThreadOrder::Forward };
        for c in battery.iter().filter(|c| c.shape.elements() <= 1 << 21) {
            let v = ktrav::lab::simtrack::run(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG, c.shape, &once);
            assert_eq!(!v.passed(), find_the_bug_fails_on(c.shape), "{}: {v:?}", c.label);
            if !v.passed() {
                assert_eq!(v.kinds(), [FailureKind::Unwritten], "{}", c.label);
            }
        }
    }

    /// The expected output is the copy the chapter simulates.
    #[test]
    fn the_expected_output_is_the_simulated_copy() {
        for c in crate::SOURCE_CASES {
            let src: Vec<f32> = (0..c.shape.elements()).map(|i| input_value(0, i)).collect();
            let cfg = crate::Mapping::XToCol.launch(c.shape, c.block).unwrap();
            let copied = crate::simulate_copy(crate::Mapping::XToCol, &src, c.shape, &cfg, &ktrav::BlockOrder::Forward);
            let expected = (COPY_EXERCISE.expected)(c.shape);
            assert!(copied.iter().enumerate().all(|(i, v)| expected(i as u64) == v.to_bits() as u64), "{}", c.label);
        }
    }
}
