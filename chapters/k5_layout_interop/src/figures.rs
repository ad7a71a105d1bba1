//! K.5's figure: one matrix, its row-major and its column-major offsets,
//! each drawn with the path memory takes through it. The numbers are
//! [`StorageOrder::offset`] and the stride-1 axis is [`contiguous_axis`].

use crate::{contiguous_axis, walk, Axis, SOURCE_SHAPE};
use ktrav::StorageOrder;
use ktrav_figure::{Anchor, Figure, Grid, INK, RED, TINTS};

/// Every figure of the K.5 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k5-offsets-row-vs-col-major.svg", offsets())]
}

fn offsets() -> String {
    let shape = SOURCE_SHAPE;
    let (rows, cols) = (shape.rows, shape.cols);
    let (cw, ch, left, top, gap) = (46.0, 38.0, 50.0, 80.0, 80.0);
    let panel_w = cols as f64 * cw;
    let mut fig = Figure::new(
        left + 2.0 * panel_w + gap + 16.0,
        top + rows as f64 * ch + 40.0,
        "The same 4 by 6 matrix with each element's flat offset under row-major storage, where offsets run along \
         each row (0 to 5, then 6 to 11), and under column-major storage, where they run down each column (0 to 3, \
         then 4 to 7); arrows follow the offsets along each row and down each column",
    );
    for (i, order) in [StorageOrder::RowMajor, StorageOrder::ColMajor].into_iter().enumerate() {
        let grid = Grid::new(left + i as f64 * (panel_w + gap), top, cw, ch, rows, cols);
        let (row_stride, col_stride) = order.strides(shape);
        let axis = contiguous_axis(order, shape);
        let (line_of, lines) = match axis {
            Axis::Col => ((|r: u64, _c: u64| r) as fn(u64, u64) -> u64, rows),
            Axis::Row => ((|_r: u64, c: u64| c) as fn(u64, u64) -> u64, cols),
        };
        grid.draw(
            &mut fig,
            |r, c| Some(TINTS[(line_of(r, c) % 2) as usize]),
            |r, c| Some(order.offset(shape, r, c).to_string()),
            14.0,
        );
        // The path memory takes: cells in offset order, one contiguous run
        // (a `walk` along the stride-1 axis) after another.
        for fixed in 0..lines {
            let run = walk(order, shape, axis, fixed);
            let points: Vec<(f64, f64)> = run
                .iter()
                .map(|&off| {
                    let (r, c) = match axis {
                        Axis::Col => (fixed, (off - fixed * row_stride) / col_stride),
                        Axis::Row => ((off - fixed * col_stride) / row_stride, fixed),
                    };
                    let (x, y) = grid.centre(r, c);
                    match axis {
                        Axis::Col => (x, y + 11.0),
                        Axis::Row => (x + 15.0, y),
                    }
                })
                .collect();
            fig.path(&points, RED, 1.5, true);
        }
        fig.bold(
            grid.x,
            top - 48.0,
            13.0,
            Anchor::Start,
            INK,
            &format!("{order}: offset = row*{row_stride} + col*{col_stride}"),
        );
        fig.text(
            grid.x,
            top - 30.0,
            12.0,
            Anchor::Start,
            INK,
            &format!(
                "stride 1 along each {}",
                match axis {
                    Axis::Col => "row",
                    Axis::Row => "column",
                }
            ),
        );
        grid.column_numbers(&mut fig, 1, 10.0);
        grid.row_numbers(&mut fig, 1, 10.0);
    }
    fig.text(
        left,
        top + rows as f64 * ch + 22.0,
        12.0,
        Anchor::Start,
        INK,
        &format!("one {rows}x{cols} matrix; each cell shows where (row, col) lives in the flat buffer"),
    );
    fig.finish()
}
