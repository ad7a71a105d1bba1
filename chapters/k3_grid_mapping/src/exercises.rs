//! The K.3 lab exercise `copy` on the simulator track: a 2D copy whose
//! launch spreads x over the columns (block 32 x 8). The twins mirror
//! `exercises/k3_grid_mapping/`; `cargo test -p k3_grid_mapping exercises`
//! runs them under 5 block orders times 3 thread orders.

use ktrav::lab::simtrack::{check_twin, Ctx, Mem, Twin, Twins};
use ktrav::lab::{input_value, Arg, Elem, Exercise, Launch};
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
    timing_shape: Shape::new(4096, 4096),
    expected: |_| Box::new(|i| input_value(0, i).to_bits() as u64),
    twins: Twins { starter: STARTER, solution: SOLUTION, wrong: WRONG },
};

/// The chapter's exercises, its `Chapter` value's `exercises`.
pub const EXERCISES: &[Exercise] = &[COPY_EXERCISE];

// ANCHOR: starter
pub fn copy_starter(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let _ = (t, rows, cols, mem);
    // TODO: this thread's row and column, and the copy of element
    // row * cols + col from input 0 to the output, if it lies inside.
}

pub const STARTER: Twin = Twin { name: "the starter", steps: 1, barriers_after: &[], shared_words: 0, body: copy_starter };
// ANCHOR_END: starter

// ANCHOR: solution
pub fn copy_solution(ctx: &Ctx, _step: usize, _shared: &mut [f32], mem: &mut Mem) {
    let (t, rows, cols) = (ctx.t, ctx.rows, ctx.cols);
    let (row, col) = (t.global_y(), t.global_x()); // x walks the columns
    if row < rows && col < cols {
        let i = (row * cols + col) as i64;
        mem.write_f32(i, mem.input(0, i));
    }
}

pub const SOLUTION: Twin = Twin { name: "the solution", body: copy_solution, ..STARTER };
// ANCHOR_END: solution

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

pub const WRONG: &[(Twin, &str)] = &[
    (Twin { name: "one_axis_guard", body: one_axis_guard, ..STARTER }, "out of bounds"),
    (Twin { name: "swapped_xy", body: swapped_xy, ..STARTER }, "unwritten"),
    (Twin { name: "write_past_end", body: write_past_end, ..STARTER }, "out of bounds"),
];
// ANCHOR_END: wrong

/// What the exercise page shows: the simulated check of a wrong twin.
pub fn shown() -> String {
    check_twin(&COPY_EXERCISE, &WRONG[0].0).render()
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
