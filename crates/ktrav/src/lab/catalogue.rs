//! The lab exercises of K.2 to K.7: for each, the kernel the student
//! writes, how it is launched and what it must produce. The solution is the
//! chapter's own kernel of the same name in `kernels/<chapter>.cu`; the
//! starter and the catalogue of wrong kernels live in `exercises/<chapter>/`.

use super::reference::{self, Lattice};
use super::{Arg, Elem, Exercise, Expected, Launch};
use crate::geometry::{Dim2, Shape};

/// Every chapter's exercises, in chapter order.
pub static BY_CHAPTER: &[&[Exercise]] = &[K2_TRANSPOSE, K3_GRID_MAPPING, K4_BOUNDARY_CHECK, K5_LAYOUT_INTEROP, K6_SPIRAL, K7_DIAGONAL];

/// The exercises of k2_transpose, its `Chapter` value's `exercises`.
pub const K2_TRANSPOSE: &[Exercise] = &[
    Exercise {
        id: "transpose",
        chapter: "k2_transpose",
        section: "K.2",
        title: "a tiled transpose with a padded tile, for any shape",
        kernel: "transpose_tile32_padded",
        starter: "exercises/k2_transpose/transpose.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
        inputs: 1,
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 32), x_walks_rows: false, grid_stride_y: true },
        source_shapes: &[(8, 8), (7, 5), (10, 13), (3, 11)],
        timing_shape: Shape::new(4096, 4096),
        expected: transpose,
    },
    Exercise {
        id: "find-the-bug",
        chapter: "k2_transpose",
        section: "K.2",
        title: "find the bug: a transpose that passes the source's shapes",
        kernel: "transpose_tile32_padded",
        starter: "exercises/k2_transpose/find_the_bug.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
        inputs: 1,
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 32), x_walks_rows: false, grid_stride_y: true },
        source_shapes: &[(8, 8), (7, 5), (10, 13), (3, 11)],
        timing_shape: Shape::new(4096, 4096),
        expected: transpose,
    },
];

/// The exercises of k3_grid_mapping, its `Chapter` value's `exercises`.
pub const K3_GRID_MAPPING: &[Exercise] = &[
    Exercise {
        id: "copy",
        chapter: "k3_grid_mapping",
        section: "K.3",
        title: "a 2D copy with x walking columns",
        kernel: "copy_x_to_col",
        starter: "exercises/k3_grid_mapping/copy.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
        inputs: 1,
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
        source_shapes: &[(32, 32), (37, 61), (5, 200), (1000, 1000)],
        timing_shape: Shape::new(4096, 4096),
        expected: copy,
    },
];

/// The exercises of k4_boundary_check, its `Chapter` value's `exercises`.
pub const K4_BOUNDARY_CHECK: &[Exercise] = &[
    Exercise {
        id: "guard",
        chapter: "k4_boundary_check",
        section: "K.4",
        title: "a fill guarded on both axes",
        kernel: "fill_checked",
        starter: "exercises/k4_boundary_check/guard.cu",
        args: &[Arg::Out, Arg::Rows64, Arg::Cols64],
        inputs: 0,
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
        source_shapes: &[(4, 10)],
        timing_shape: Shape::new(4096, 4096),
        expected: marker,
    },
];

/// The exercises of k5_layout_interop, its `Chapter` value's `exercises`.
pub const K5_LAYOUT_INTEROP: &[Exercise] = &[
    Exercise {
        id: "col-major-add",
        chapter: "k5_layout_interop",
        section: "K.5",
        title: "element-wise addition on column-major data, x walking rows",
        kernel: "add_col_major",
        starter: "exercises/k5_layout_interop/col_major_add.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Input(1), Arg::Rows64, Arg::Cols64],
        inputs: 2,
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: true, grid_stride_y: false },
        source_shapes: &[(4, 6), (64, 96)],
        timing_shape: Shape::new(4096, 4096),
        expected: add,
    },
];

/// The exercises of k6_spiral, its `Chapter` value's `exercises`.
pub const K6_SPIRAL: &[Exercise] = &[
    Exercise {
        id: "spiral-gather",
        chapter: "k6_spiral",
        section: "K.6",
        title: "spiral order by gathering through the inverse",
        kernel: "spiral_gather",
        starter: "exercises/k6_spiral/spiral_gather.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows32, Arg::Cols32],
        inputs: 1,
        elem: Elem::F32,
        launch: Launch::Covering { block: Dim2::new(32, 8), x_walks_rows: false, grid_stride_y: false },
        source_shapes: &[(4, 4), (7, 5), (9, 6), (6, 9)],
        timing_shape: Shape::new(4096, 4096),
        expected: spiral_gather,
    },
];

/// The exercises of k7_diagonal, its `Chapter` value's `exercises`.
pub const K7_DIAGONAL: &[Exercise] = &[
    Exercise {
        id: "wavefront",
        chapter: "k7_diagonal",
        section: "K.7",
        title: "one wavefront step of the lattice-path table",
        kernel: "lattice_wavefront",
        starter: "exercises/k7_diagonal/wavefront.cu",
        args: &[Arg::Out, Arg::Rows64, Arg::Cols64, Arg::Step],
        inputs: 0,
        elem: Elem::U64,
        launch: Launch::PerDiagonal { block: 256 },
        source_shapes: &[(5, 5), (6, 9), (9, 6), (1, 8), (8, 1)],
        timing_shape: Shape::new(2048, 2048),
        expected: lattice,
    },
];

fn transpose(shape: Shape) -> Expected {
    Box::new(move |i| reference::input_value(0, reference::transpose_source(shape, i)).to_bits() as u64)
}

fn copy(_: Shape) -> Expected {
    Box::new(|i| reference::input_value(0, i).to_bits() as u64)
}

fn marker(shape: Shape) -> Expected {
    Box::new(move |i| reference::marker(shape, i).to_bits() as u64)
}

fn add(_: Shape) -> Expected {
    Box::new(|i| (reference::input_value(0, i) + reference::input_value(1, i)).to_bits() as u64)
}

fn spiral_gather(shape: Shape) -> Expected {
    Box::new(move |i| {
        let (r, c) = reference::spiral_position(shape, i);
        reference::input_value(0, r * shape.cols + c).to_bits() as u64
    })
}

fn lattice(shape: Shape) -> Expected {
    let table = Lattice::new(shape);
    Box::new(move |i| table.paths(i / shape.cols, i % shape.cols))
}
