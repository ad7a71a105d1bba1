//! The K.6 lab exercise `spiral-gather` on the simulator track: one thread
//! per output slot `to`, reading the input element of spiral rank `to`
//! (block 32 x 8, x over the columns). Given [`ring_start`] and
//! [`ring_containing`], the student walks the ring's four sides. The twins
//! mirror `exercises/k6_spiral/`; `cargo test -p k6_spiral exercises` runs
//! them under every schedule.

use crate::{ring_containing, ring_start, spiral_position};
use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{input_value, Arg, Elem, Exercise, Launch};
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
    timing_shape: Shape::new(4096, 4096),
    expected: |shape| {
        Box::new(move |rank| {
            let (r, c) = spiral_position(rank, shape.rows, shape.cols);
            input_value(0, r * shape.cols + c).to_bits() as u64
        })
    },
    twins: Twins { starter: STARTER, solution: SOLUTION, wrong: WRONG },
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[SPIRAL_GATHER_EXERCISE];

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
/// The walk of the ring's four sides is the chapter's own inverse closed
/// form, [`spiral_position`](crate::spiral_position): the ring holding `to`,
/// then the side along it.
pub fn gather_solution(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (row, col) = (ctx.t.global_y(), ctx.t.global_x());
    if row < ctx.rows && col < ctx.cols {
        let to = row * ctx.cols + col;
        let (r, c) = spiral_position(to, ctx.rows, ctx.cols);
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
    check_twin(&SPIRAL_GATHER_EXERCISE, &WRONG[0].0).render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ktrav::lab::simtrack::assert_track;

    #[test]
    fn every_solution_passes_and_every_starter_and_wrong_twin_fails() {
        for ex in EXERCISES {
            assert_track(ex);
        }
    }

    /// The expected gather is the spiral order walked cell by cell (the
    /// chapter's sequential reference), on odd, thin and tall shapes.
    #[test]
    fn the_expected_gather_is_the_walked_spiral() {
        for shape in [Shape::new(1, 1), Shape::new(4, 5), Shape::new(7, 5), Shape::new(6, 9), Shape::new(1, 7), Shape::new(9, 1)] {
            let input: Vec<f32> = (0..shape.elements()).map(|i| input_value(0, i)).collect();
            let walked = crate::reference(&input, shape);
            let expected = (SPIRAL_GATHER_EXERCISE.expected)(shape);
            assert!(walked.iter().enumerate().all(|(i, v)| expected(i as u64) == v.to_bits() as u64), "{shape}");
        }
    }
}
