//! The K.6 lab exercise `spiral-gather` on the simulator track: one thread
//! per output slot `to`, reading the input element of spiral rank `to`
//! (block 32 x 8, x over the columns). Given [`ring_start`] and
//! [`ring_containing`], the student walks the ring's four sides. The twins
//! mirror `exercises/k6_spiral/`; `cargo test -p k6_spiral exercises` runs
//! the solutions and the wrong twins under every schedule, and
//! `cargo run -p k6_spiral -- sim-check spiral-gather` the student's own
//! file.

use crate::{ring_containing, ring_start, spiral_position};
use ktrav::lab::simcheck::{self, SimExercise};
use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{input_value, Arg, Elem, Exercise, FailureKind, Launch};
use ktrav::{Dim2, Shape};

/// `spiral-gather`: the chapter's gather, one thread per output slot,
/// checked on the source's four kernel cases among others. The expected
/// output is the chapter's inverse closed form, [`spiral_position`].
pub const SPIRAL_GATHER_EXERCISE: Exercise = Exercise {
    id: "spiral-gather",
    title: "spiral order by gathering through the inverse",
    kernel: crate::Kernel::Gather.name(),
    starter: "spiral_gather.cu",
    args: &[Arg::Out, Arg::Input(0), Arg::Rows32, Arg::Cols32],
    elem: Elem::F32,
    launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
    source_shapes: || crate::SOURCE_KERNEL_CASES.to_vec(),
    chapter_shapes: Vec::new,
    timing_shape: Shape::new(4096, 4096),
    expected: |shape| {
        Box::new(move |rank| {
            let (r, c) = spiral_position(rank, shape.rows, shape.cols);
            input_value(0, r * shape.cols + c).to_bits() as u64
        })
    },
    twins: Twins { solution: SOLUTION, wrong: WRONG },
};

/// `spiral-find-the-bug`: a gather that passes the source's four kernel
/// cases; the student finds the shape where it does not, and fixes it.
pub const FIND_THE_BUG_EXERCISE: Exercise = Exercise {
    id: "spiral-find-the-bug",
    title: "find the bug: a spiral gather that passes the source's cases",
    starter: "find_the_bug.cu",
    twins: Twins { solution: FIXED, wrong: &[] },
    ..SPIRAL_GATHER_EXERCISE
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[SPIRAL_GATHER_EXERCISE, FIND_THE_BUG_EXERCISE];

/// The crate's solution of `spiral-gather`, in the form of the student's
/// file.
#[path = "solutions/spiral_gather.rs"]
pub mod solution;

pub const SOLUTION: Twin = solution::TWIN;

/// The crate's fix of `spiral-find-the-bug`, in the form of the student's
/// file.
#[path = "solutions/find_the_bug.rs"]
pub mod find_the_bug_solution;

pub use find_the_bug_solution::centre_from_top_left;
pub const FIXED: Twin = find_the_bug_solution::TWIN;

#[path = "../../../exercises/k6_spiral/find_the_bug.rs"]
pub mod student_find_the_bug;
/// The student's own files, beside the `.cu` starters: only `sim-check`
/// runs them, never the crate's tests.
#[path = "../../../exercises/k6_spiral/spiral_gather.rs"]
pub mod student_spiral_gather;

/// The exercises on the simulator track, the `Chapter` value's
/// `sim_exercises`.
pub const SIM_EXERCISES: &[SimExercise] = &[
    SimExercise {
        id: SPIRAL_GATHER_EXERCISE.id,
        file: "exercises/k6_spiral/spiral_gather.rs",
        solution: "chapters/k6_spiral/src/solutions/spiral_gather.rs",
        check: || simcheck::report(&SPIRAL_GATHER_EXERCISE, &student_spiral_gather::TWIN),
    },
    SimExercise {
        id: FIND_THE_BUG_EXERCISE.id,
        file: "exercises/k6_spiral/find_the_bug.rs",
        solution: "chapters/k6_spiral/src/solutions/find_the_bug.rs",
        check: || simcheck::report(&FIND_THE_BUG_EXERCISE, &student_find_the_bug::TWIN),
    },
];

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
pub const WRONG: &[(Twin, FailureKind)] =
    &[(Twin { name: "wrong_side_order", body: wrong_side_order, ..SOLUTION }, FailureKind::Wrong)];
// ANCHOR_END: wrong

// ANCHOR: find_the_bug
/// The gather of `find_the_bug.cu`, with `centre` placing rank `offset`
/// along a collapsed ring (top, left, bottom, right) that is one line of
/// cells; a full ring is the chapter's four sides.
fn gather_with_centre(ctx: &Ctx, mem: &mut Mem, centre: fn(u64, [u64; 4]) -> (u64, u64)) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    let (rows, cols) = (ctx.rows, ctx.cols);
    if row >= rows || col >= cols {
        return;
    }
    let to = row * cols + col;
    let k = ring_containing(to, rows, cols);
    let offset = to - ring_start(k, rows, cols);
    let (top, left, bottom, right) = (k, k, rows - 1 - k, cols - 1 - k);
    let (r, c) = if right == left || bottom == top {
        centre(offset, [top, left, bottom, right])
    } else {
        spiral_position(to, rows, cols)
    };
    mem.write_f32(to as i64, mem.input(0, (r * cols + c) as i64));
}

/// `find_the_bug.cu`: the line walked from the ring's top-right corner,
/// down a lone column or leftwards along a lone row.
pub fn centre_from_top_right(offset: u64, [top, left, bottom, right]: [u64; 4]) -> (u64, u64) {
    let (width, height) = (right - left + 1, bottom - top + 1);
    (top + if width == 1 { offset } else { 0 }, right - if height == 1 { offset } else { 0 })
}

pub fn find_the_bug(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    gather_with_centre(ctx, mem, centre_from_top_right)
}

pub const FIND_THE_BUG: Twin = Twin { name: "find the bug", body: find_the_bug, ..SOLUTION };
// ANCHOR_END: find_the_bug

/// What the find-the-bug answer shows: the simulated check of its kernel.
pub fn find_the_bug_shown() -> String {
    check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG).render()
}

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    check_twin(&SPIRAL_GATHER_EXERCISE, &WRONG[0].0).render()
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

    /// Where the find-the-bug gather fails: where the collapsed centre is a
    /// lone row of two cells or more, that is, a matrix wider than tall
    /// with an odd number of rows, the smaller side.
    fn find_the_bug_fails_on(shape: Shape) -> bool {
        shape.rows < shape.cols && shape.rows % 2 == 1
    }

    #[test]
    fn find_the_bug_passes_the_source_and_fails_where_the_centre_is_a_lone_row() {
        let c = check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG);
        for l in &c.lines {
            assert_eq!(l.failure.is_some(), find_the_bug_fails_on(l.shape), "{}", l.label);
        }
        assert!(c.lines.iter().filter(|l| l.purpose == ktrav::lab::Purpose::Source).all(|l| l.failure.is_none()));
        // The source does have a collapsed centre: a lone column.
        assert!(crate::SOURCE_KERNEL_CASES.iter().any(|s| s.rows > s.cols && s.cols % 2 == 1));
        assert_eq!(c.kinds(), [FailureKind::Wrong]);
        assert!(!c.passed());
    }

    /// The centre walked both ways agrees with the chapter's inverse on a
    /// lone column and a single cell, and only the fix does on a lone row.
    #[test]
    fn the_centre_walks_agree_except_along_a_lone_row() {
        for shape in [Shape::new(7, 5), Shape::new(5, 5), Shape::new(1, 1), Shape::new(5, 7), Shape::new(1, 6)] {
            let k = crate::last_ring(shape.rows, shape.cols);
            let ring = [k, k, shape.rows - 1 - k, shape.cols - 1 - k];
            let start = ring_start(k, shape.rows, shape.cols);
            for offset in 0..shape.elements() - start {
                let want = spiral_position(start + offset, shape.rows, shape.cols);
                assert_eq!(centre_from_top_left(offset, ring), want, "{shape}, offset {offset}");
                let lone_row = ring[2] == ring[0] && ring[3] > ring[1];
                assert_eq!(
                    centre_from_top_right(offset, ring) == want,
                    !lone_row || 2 * offset == ring[3] - ring[1],
                    "{shape}, offset {offset}"
                );
            }
        }
    }

    /// The GPU's public battery: the source's shapes pass and some other
    /// shape is wrong, as the starter's `expect:` line says.
    #[test]
    fn find_the_bug_fails_some_shape_of_the_public_battery() {
        let battery = ktrav::lab::battery(&FIND_THE_BUG_EXERCISE, false);
        assert!(battery.iter().any(|c| find_the_bug_fails_on(c.shape)));
        let once =
            ktrav::lab::simtrack::Schedule { blocks: ktrav::BlockOrder::Forward, threads: ktrav::ThreadOrder::Forward };
        for c in battery.iter().filter(|c| c.shape.elements() <= 1 << 21) {
            let v = ktrav::lab::simtrack::run(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG, c.shape, &once);
            assert_eq!(!v.passed(), find_the_bug_fails_on(c.shape), "{}: {v:?}", c.label);
            assert!(v.passed() || v.kinds() == [FailureKind::Wrong], "{}: {v:?}", c.label);
            assert!(ktrav::lab::simtrack::run(&FIND_THE_BUG_EXERCISE, &FIXED, c.shape, &once).passed(), "{}", c.label);
        }
    }

    /// The expected gather is the spiral order walked cell by cell (the
    /// chapter's sequential reference), on odd, thin and tall shapes.
    #[test]
    fn the_expected_gather_is_the_walked_spiral() {
        for shape in
            [Shape::new(1, 1), Shape::new(4, 5), Shape::new(7, 5), Shape::new(6, 9), Shape::new(1, 7), Shape::new(9, 1)]
        {
            let input: Vec<f32> = (0..shape.elements()).map(|i| input_value(0, i)).collect();
            let walked = crate::reference(&input, shape);
            let expected = (SPIRAL_GATHER_EXERCISE.expected)(shape);
            assert!(walked.iter().enumerate().all(|(i, v)| expected(i as u64) == v.to_bits() as u64), "{shape}");
        }
    }
}
