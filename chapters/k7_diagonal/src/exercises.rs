//! The K.7 lab exercise `wavefront` on the simulator track: one launch per
//! anti-diagonal `d` (a 1D grid of 256-thread blocks covering it), each
//! thread filling one cell of the lattice-path table from its two
//! neighbours on diagonal `d - 1`. The twins mirror
//! `exercises/k7_diagonal/`; `cargo test -p k7_diagonal exercises` runs
//! the solution and the wrong twins under every schedule, lock-step
//! threads included, and `cargo run -p k7_diagonal -- sim-check wavefront`
//! the student's own file.

use crate::{add_mod, Binomials};
use ktrav::lab::simcheck::{self, SimExercise};
use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{Arg, Elem, Exercise, FailureKind, Launch};
use ktrav::Shape;

/// `wavefront`: one step of the chapter's per-diagonal wavefront, checked on
/// the source's five tables among others. The expected table is the
/// chapter's binomial closed form, [`Binomials::paths`].
pub const WAVEFRONT_EXERCISE: Exercise = Exercise {
    id: "wavefront",
    title: "one wavefront step of the lattice-path table",
    kernel: "lattice_wavefront",
    starter: "wavefront.cu",
    args: &[Arg::Out, Arg::Rows64, Arg::Cols64, Arg::Step],
    elem: Elem::U64,
    launch: Launch::PerDiagonal { block: 256 },
    source_shapes: || crate::SOURCE_DP_CASES.to_vec(),
    chapter_shapes: Vec::new,
    timing_shape: Shape::new(2048, 2048),
    expected: |shape| {
        let table = Binomials::for_table(shape);
        Box::new(move |i| table.paths(i / shape.cols, i % shape.cols))
    },
    twins: Twins { solution: SOLUTION, wrong: WRONG },
};

/// `wavefront-find-the-bug`: a wavefront step that matches the source's
/// five tables; the student finds the shape where it does not, and fixes it.
pub const FIND_THE_BUG_EXERCISE: Exercise = Exercise {
    id: "wavefront-find-the-bug",
    title: "find the bug: a wavefront step that matches the source's tables",
    starter: "find_the_bug.cu",
    twins: Twins { solution: SOLUTION, wrong: &[] },
    ..WAVEFRONT_EXERCISE
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[WAVEFRONT_EXERCISE, FIND_THE_BUG_EXERCISE];

/// The first and last rows of diagonal `d` in a rows x cols table.
pub fn row_min(d: i64, cols: i64) -> i64 {
    (d - (cols - 1)).max(0)
}
pub fn row_max(d: i64, rows: i64) -> i64 {
    d.min(rows - 1)
}

/// The crate's solution of `wavefront` (also the fix of
/// `wavefront-find-the-bug`), in the form of the student's file.
#[path = "solutions/wavefront.rs"]
pub mod solution;

pub const SOLUTION: Twin = solution::TWIN;

#[path = "../../../exercises/k7_diagonal/find_the_bug.rs"]
pub mod student_find_the_bug;
/// The student's own files, beside the `.cu` starters: only `sim-check`
/// runs them, never the crate's tests.
#[path = "../../../exercises/k7_diagonal/wavefront.rs"]
pub mod student_wavefront;

/// The exercises on the simulator track, the `Chapter` value's
/// `sim_exercises`.
pub const SIM_EXERCISES: &[SimExercise] = &[
    SimExercise {
        id: WAVEFRONT_EXERCISE.id,
        file: "exercises/k7_diagonal/wavefront.rs",
        solution: "chapters/k7_diagonal/src/solutions/wavefront.rs",
        check: || simcheck::report(&WAVEFRONT_EXERCISE, &student_wavefront::TWIN),
    },
    SimExercise {
        id: FIND_THE_BUG_EXERCISE.id,
        file: "exercises/k7_diagonal/find_the_bug.rs",
        solution: "chapters/k7_diagonal/src/solutions/wavefront.rs",
        check: || simcheck::report(&FIND_THE_BUG_EXERCISE, &student_find_the_bug::TWIN),
    },
];

// ANCHOR: wrong
/// `wrong/reads_current_diagonal.cu`: above and above-right, the latter on
/// diagonal `d`, being written by another thread of the same launch (in
/// the last column the address wraps to the first cell of its own row).
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

pub const WRONG: &[(Twin, FailureKind)] = &[
    (Twin { name: "reads_current_diagonal", body: reads_current_diagonal, ..SOLUTION }, FailureKind::Wrong),
    (Twin { name: "no_boundary_check", body: no_boundary_check, ..SOLUTION }, FailureKind::OutOfBounds),
];
// ANCHOR_END: wrong

// ANCHOR: find_the_bug
/// `find_the_bug.cu`: the two neighbours added as plain 64-bit integers,
/// which wrap at 2^64, not at the modulus.
pub fn unreduced_sum(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (rows, cols, d) = (ctx.rows as i64, ctx.cols as i64, ctx.diagonal);
    let row = row_min(d, cols) + ctx.t.global_x() as i64;
    if row > row_max(d, rows) {
        return;
    }
    let col = d - row;
    let at = row * cols + col;
    let value = if row == 0 || col == 0 { 1 } else { mem.read_u64(at - cols).wrapping_add(mem.read_u64(at - 1)) };
    mem.write_u64(at, value);
}

/// Its fix is the solution: `add_mod` of the two neighbours.
pub const FIND_THE_BUG: Twin = Twin { name: "find the bug", body: unreduced_sum, ..SOLUTION };
// ANCHOR_END: find_the_bug

/// What the find-the-bug answer shows: the simulated check of its kernel.
pub fn find_the_bug_shown() -> String {
    check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG).render()
}

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    check_twin(&WAVEFRONT_EXERCISE, &WRONG[0].0).render()
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

    /// Where the find-the-bug step fails: where some count, C(r + c, r),
    /// reaches the modulus. The largest is the far corner's.
    fn find_the_bug_fails_on(shape: Shape) -> bool {
        let (n, k) = (shape.rows + shape.cols - 2, (shape.rows - 1).min(shape.cols - 1));
        // C(n, i) grows with i up to k <= n / 2: stop once it reaches the modulus.
        let mut c: u128 = 1;
        for i in 0..k as u128 {
            c = c * (n as u128 - i) / (i + 1);
            if c >= crate::MODULUS as u128 {
                return true;
            }
        }
        false
    }

    #[test]
    fn find_the_bug_passes_the_source_and_fails_where_the_counts_pass_the_modulus() {
        let c = check_twin(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG);
        for l in &c.lines {
            assert_eq!(l.failure.is_some(), find_the_bug_fails_on(l.shape), "{}", l.label);
        }
        assert!(c.lines.iter().filter(|l| l.purpose == ktrav::lab::Purpose::Source).all(|l| l.failure.is_none()));
        assert_eq!(c.kinds(), [FailureKind::Wrong]);
        assert!(!c.passed());
        // The predicate is the table's: C(64, 32) is below the modulus, C(66, 33) past it.
        assert!(!find_the_bug_fails_on(Shape::new(33, 33)) && find_the_bug_fails_on(Shape::new(34, 34)));
    }

    /// The GPU's public battery: the source's shapes pass and some other
    /// shape is wrong, as the starter's `expect:` line says.
    #[test]
    fn find_the_bug_fails_some_shape_of_the_public_battery() {
        let battery = ktrav::lab::battery(&FIND_THE_BUG_EXERCISE, false);
        assert!(battery.iter().any(|c| find_the_bug_fails_on(c.shape)));
        let once =
            ktrav::lab::simtrack::Schedule { blocks: ktrav::BlockOrder::Forward, threads: ktrav::ThreadOrder::Forward };
        for c in battery.iter().filter(|c| c.shape.elements() <= 1 << 18) {
            let v = ktrav::lab::simtrack::run(&FIND_THE_BUG_EXERCISE, &FIND_THE_BUG, c.shape, &once);
            assert_eq!(!v.passed(), find_the_bug_fails_on(c.shape), "{}: {v:?}", c.label);
            assert!(v.passed() || v.kinds() == [FailureKind::Wrong], "{}: {v:?}", c.label);
        }
    }

    /// The expected table is the scalar DP's, including past 2^61 where the
    /// modulus bites (C(78, 39) > 2^61).
    #[test]
    fn the_expected_table_is_the_scalar_dp() {
        for shape in [Shape::new(1, 1), Shape::new(5, 5), Shape::new(1, 8), Shape::new(9, 1), Shape::new(40, 41)] {
            let dp = crate::scalar_dp(shape);
            let expected = (WAVEFRONT_EXERCISE.expected)(shape);
            assert!(dp.iter().enumerate().all(|(i, &v)| expected(i as u64) == v), "{shape}");
        }
    }
}
