//! The K.5 lab exercise `col-major-add` on the simulator track: `out = a +
//! b` on column-major data, the launch spreading x over the rows (block
//! 32 x 8) so that a warp reads a contiguous column. The twins mirror
//! `exercises/k5_layout_interop/`; `cargo test -p k5_layout_interop
//! exercises` runs the solutions and the wrong twins under every
//! schedule, and `cargo run -p k5_layout_interop -- sim-check
//! col-major-add` the student's own file.

use ktrav::lab::simcheck::{self, SimExercise};
use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{input_value, Arg, Elem, Exercise, FailureKind, Launch};
use ktrav::{Dim2, Shape, StorageOrder};

/// `col-major-add`: the chapter's column-major twin of the addition, x
/// walking the rows, checked on the source's 4x6 and the warp table's 64x96
/// among others.
pub const COL_MAJOR_ADD_EXERCISE: Exercise = Exercise {
    id: "col-major-add",
    title: "element-wise addition on column-major data, x walking rows",
    kernel: crate::Pairing::twin_for(StorageOrder::ColMajor).kernel_name(),
    starter: "col_major_add.cu",
    args: &[Arg::Out, Arg::Input(0), Arg::Input(1), Arg::Rows64, Arg::Cols64],
    elem: Elem::F32,
    launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: true, grid_stride_y: false },
    source_shapes: || vec![crate::SOURCE_SHAPE],
    chapter_shapes: || vec![("the warp table's", crate::WARP_SHAPE)],
    timing_shape: Shape::new(4096, 4096),
    expected: |_| Box::new(|i| (input_value(0, i) + input_value(1, i)).to_bits() as u64),
    twins: Twins { solution: SOLUTION, wrong: WRONG },
};

/// `col-major-find-the-bug`: an addition that passes the source's 4x6 and
/// the warp table's 64x96; the student finds the shape where it does not,
/// and fixes it.
pub const FIND_THE_BUG_EXERCISE: Exercise = Exercise {
    id: "col-major-find-the-bug",
    title: "find the bug: a column-major addition that passes 4x6 and 64x96",
    starter: "find_the_bug.cu",
    twins: Twins { solution: FIXED, wrong: &[] },
    ..COL_MAJOR_ADD_EXERCISE
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[COL_MAJOR_ADD_EXERCISE, FIND_THE_BUG_EXERCISE];

/// The crate's solution of `col-major-add`, in the form of the student's
/// file.
#[path = "solutions/col_major_add.rs"]
pub mod solution;

pub const SOLUTION: Twin = solution::TWIN;

/// The crate's fix of `col-major-find-the-bug`, in the form of the
/// student's file.
#[path = "solutions/find_the_bug.rs"]
pub mod find_the_bug_solution;

pub const FIXED: Twin = find_the_bug_solution::TWIN;

/// The student's own files, beside the `.cu` starters: only `sim-check`
/// runs them, never the crate's tests.
#[path = "../../../exercises/k5_layout_interop/col_major_add.rs"]
pub mod student_col_major_add;
#[path = "../../../exercises/k5_layout_interop/find_the_bug.rs"]
pub mod student_find_the_bug;

/// The exercises on the simulator track, the `Chapter` value's
/// `sim_exercises`.
pub const SIM_EXERCISES: &[SimExercise] = &[
    SimExercise {
        id: COL_MAJOR_ADD_EXERCISE.id,
        file: "exercises/k5_layout_interop/col_major_add.rs",
        solution: "chapters/k5_layout_interop/src/solutions/col_major_add.rs",
        check: || simcheck::report(&COL_MAJOR_ADD_EXERCISE, &student_col_major_add::TWIN),
    },
    SimExercise {
        id: FIND_THE_BUG_EXERCISE.id,
        file: "exercises/k5_layout_interop/find_the_bug.rs",
        solution: "chapters/k5_layout_interop/src/solutions/find_the_bug.rs",
        check: || simcheck::report(&FIND_THE_BUG_EXERCISE, &student_find_the_bug::TWIN),
    },
];

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

/// `wrong/short_row_index.cu`: the row in an `unsigned short`, which wraps
/// at 65536 rows; only the hidden battery has a column that tall.
pub fn short_row_index(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_x() as u16 as u64, ctx.t.global_y());
    if row < ctx.rows && col < ctx.cols {
        let i = (col * ctx.rows + row) as i64;
        mem.write_f32(i, mem.input(0, i) + mem.input(1, i));
    }
}

pub const WRONG: &[(Twin, FailureKind)] = &[
    (Twin { name: "one_axis_guard", body: one_axis_guard, ..SOLUTION }, FailureKind::OutOfBounds),
    (Twin { name: "swapped_xy", body: swapped_xy, ..SOLUTION }, FailureKind::Unwritten),
    (Twin { name: "short_row_index", body: short_row_index, ..SOLUTION }, FailureKind::Unwritten),
];
// ANCHOR_END: wrong

// ANCHOR: find_the_bug
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

/// `find_the_bug.cu`: the blocks of x measured against the columns, those
/// of y against the rows.
pub fn inside_as_if_row_major(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    add_unless_inside(ctx, block_inside(ctx, ctx.cols, ctx.rows), mem)
}

pub const FIND_THE_BUG: Twin = Twin { name: "find the bug", body: inside_as_if_row_major, ..SOLUTION };
// ANCHOR_END: find_the_bug

/// What the find-the-bug answer shows: the simulated check of its kernel.
pub fn find_the_bug_shown() -> String {
    check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG).render()
}

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    check_twin(&COL_MAJOR_ADD_EXERCISE, &WRONG[1].0).render()
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

    /// Where the find-the-bug addition fails: the block in the first block
    /// row of x (taken as inside because x's first block fits the columns)
    /// whose y sticks out past the last column is taken as inside when the
    /// rows reach past it (a matrix taller than wide); its strays store past
    /// the end. Every other stray lands on a slot whose sum it stores.
    fn find_the_bug_fails_on(shape: Shape) -> bool {
        let (cfg, _) = ktrav::lab::launches(&FIND_THE_BUG_EXERCISE, shape).unwrap()[0];
        let (bx, by) = (cfg.block.x as u64, cfg.block.y as u64);
        shape.cols >= bx && !shape.cols.is_multiple_of(by) && shape.rows >= shape.cols.div_ceil(by) * by
    }

    #[test]
    fn find_the_bug_passes_the_source_and_fails_on_tall_shapes_only() {
        let c = check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG);
        for l in &c.lines {
            assert_eq!(l.failure.is_some(), find_the_bug_fails_on(l.shape), "{}", l.label);
            assert!(l.failure.is_none() || l.shape.rows > l.shape.cols, "{}", l.label);
        }
        let given = [ktrav::lab::Purpose::Source, ktrav::lab::Purpose::Chapter];
        assert!(c.lines.iter().filter(|l| given.contains(&l.purpose)).all(|l| l.failure.is_none()));
        assert_eq!(c.kinds(), [FailureKind::OutOfBounds]);
        // The fix passes (the simulator track's own assertion, spelled out).
        assert!(check_twin(&FIND_THE_BUG_EXERCISE, &FIXED).passed());
    }

    /// The GPU's public battery: the source's shapes pass and some other
    /// shape writes out of bounds, as the starter's `expect:` line says.
    #[test]
    fn find_the_bug_fails_some_shape_of_the_public_battery() {
        let battery = ktrav::lab::battery(&FIND_THE_BUG_EXERCISE, false);
        assert!(battery.iter().any(|c| find_the_bug_fails_on(c.shape)));
        let once =
            ktrav::lab::simtrack::Schedule { blocks: ktrav::BlockOrder::Forward, threads: ktrav::ThreadOrder::Forward };
        for c in battery.iter().filter(|c| c.shape.elements() <= 1 << 21) {
            let v = ktrav::lab::simtrack::run(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG, c.shape, &once);
            assert_eq!(!v.passed(), find_the_bug_fails_on(c.shape), "{}: {v:?}", c.label);
            assert!(v.passed() || v.kinds() == [FailureKind::OutOfBounds], "{}: {v:?}", c.label);
            assert!(ktrav::lab::simtrack::run(&FIND_THE_BUG_EXERCISE, &FIXED, c.shape, &once).passed(), "{}", c.label);
        }
    }

    /// The expected sum is what the chapter's own column-major twin leaves
    /// in the simulator, launched as the exercise launches it.
    #[test]
    fn the_expected_sum_is_the_simulated_col_major_add() {
        let pairing = crate::Pairing::twin_for(StorageOrder::ColMajor);
        for shape in [crate::SOURCE_SHAPE, crate::WARP_SHAPE, Shape::new(37, 5)] {
            let n = shape.elements();
            let (a, b): (Vec<f32>, Vec<f32>) =
                ((0..n).map(|i| input_value(0, i)).collect(), (0..n).map(|i| input_value(1, i)).collect());
            let sum =
                crate::add_mapped(pairing, &a, &b, shape, Dim2::new(32, 8), &ktrav::BlockOrder::Forward, f32::NAN);
            let expected = (COL_MAJOR_ADD_EXERCISE.expected)(shape);
            assert!(sum.iter().enumerate().all(|(i, v)| expected(i as u64) == v.to_bits() as u64), "{shape}");
        }
    }
}
