//! K.6's figure: the rings of a spiral and every cell's rank, for a shape
//! whose innermost ring is a single row and one whose innermost ring is a
//! single column. Ranks come from the closed form [`spiral_rank`], rings
//! from [`ring_of`], and the path from the inverse [`spiral_position`].

use crate::{last_ring, ring_of, spiral_position, spiral_rank};
use ktrav_figure::{Anchor, Figure, Grid, CELL_INK, INK, RED, TINTS};

/// The shapes drawn: 5x7 ends in a 1x3 ring, 5x3 in a 3x1 ring.
pub const SHAPES: [(u64, u64); 2] = [(5, 7), (5, 3)];

/// Every figure of the K.6 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k6-rings-and-ranks.svg", rings_and_ranks())]
}

/// The rows and columns of ring `k`, the innermost being collapsed when
/// either is 1.
pub fn ring_shape(k: u64, rows: u64, cols: u64) -> (u64, u64) {
    (rows - 2 * k, cols - 2 * k)
}

fn rings_and_ranks() -> String {
    let (cell, left, top, gap) = (46.0, 30.0, 78.0, 70.0);
    let width: f64 = SHAPES.iter().map(|&(_, c)| c as f64 * cell).sum::<f64>() + gap + left + 130.0;
    let tallest = SHAPES.iter().map(|&(r, _)| r).max().unwrap_or(1) as f64 * cell;
    let mut fig = Figure::new(
        width,
        top + tallest + 56.0,
        "Spiral ranks of a 5 by 7 and a 5 by 3 matrix, each cell coloured by its ring and numbered by its place in \
         the spiral, with a line through the cells in rank order: the 5 by 7 matrix's third ring collapses to a single \
         row of 3 cells, the 5 by 3 matrix's second ring to a single column of 3",
    );
    let mut x = left;
    for (rows, cols) in SHAPES {
        let grid = Grid::new(x, top, cell, cell, rows, cols);
        grid.draw(
            &mut fig,
            |r, c| Some(TINTS[ring_of(r, c, rows, cols) as usize % TINTS.len()]),
            |r, c| Some(spiral_rank(r, c, rows, cols).to_string()),
            14.0,
        );
        grid.boundaries(&mut fig, |r, c| ring_of(r, c, rows, cols), CELL_INK, 2.0);
        let points: Vec<(f64, f64)> = (0..rows * cols)
            .map(|rank| {
                let (r, c) = spiral_position(rank, rows, cols);
                let (cx, cy) = grid.centre(r, c);
                (cx, cy + 12.0)
            })
            .collect();
        fig.path(&points, RED, 1.4, true);
        let last = last_ring(rows, cols);
        let (lr, lc) = ring_shape(last, rows, cols);
        fig.bold(x, top - 46.0, 13.0, Anchor::Start, INK, &format!("{rows}x{cols}: {} rings", last + 1));
        let kind = if lr == 1 {
            "a single row"
        } else if lc == 1 {
            "a single column"
        } else {
            "a full ring"
        };
        fig.text(x, top - 28.0, 12.0, Anchor::Start, INK, &format!("ring {last} is {lr}x{lc}: {kind}"));
        x += cols as f64 * cell + gap;
    }
    let items: Vec<String> = (0..3).map(|k| format!("ring {k}")).collect();
    let items: Vec<(&str, &str)> = items.iter().enumerate().map(|(k, s)| (TINTS[k], s.as_str())).collect();
    let end = fig.legend(left, top + tallest + 24.0, &items);
    fig.text(end, top + tallest + 24.0, 12.0, Anchor::Start, INK, "numbers: spiral rank; line: ranks in order");
    fig.finish()
}
