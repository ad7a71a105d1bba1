//! K.3's figure: where the lanes of a block's first warps read, under each
//! mapping, on a small row-major matrix with its 32-byte sectors outlined.
//! Cells come from [`Mapping::element`], the kernels' own index math.

use crate::{Mapping, DEMO_BLOCK, ELEM_BYTES, SECTOR_BYTES, WARP};
use ktrav::{Dim2, Thread};
use ktrav_figure::{Anchor, Figure, Grid, CELL_INK, INK, PLAIN, TINTS};
use std::collections::BTreeSet;

/// The figure's matrix: 32 rows, so a warp along x fits down one column,
/// and 40 columns, five 8-float sectors to a row.
pub const ROWS: u64 = 32;
pub const COLS: u64 = 40;
/// Warps shown: threadIdx.y = 0..WARPS of block (0, 0).
pub const WARPS: u32 = 4;

/// Every figure of the K.3 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k3-warp-addresses.svg", warp_addresses())]
}

/// The row-major offset each lane of warp `warp` of block (0, 0) copies.
pub fn warp_elements(mapping: Mapping, warp: u32) -> Vec<u64> {
    let cfg = mapping.launch(ktrav::Shape::new(ROWS, COLS), DEMO_BLOCK).expect("the figure's launch is valid");
    let warps_per_row = DEMO_BLOCK.x.div_ceil(WARP);
    (0..WARP)
        .map(|lane| {
            let linear = warp * WARP + lane;
            let thread_idx = Dim2::new(linear % DEMO_BLOCK.x, linear / DEMO_BLOCK.x);
            debug_assert_eq!(thread_idx.y, warp / warps_per_row);
            let t = Thread { block_idx: Dim2::new(0, 0), thread_idx, block_dim: cfg.block, grid_dim: cfg.grid };
            mapping.element(&t, ktrav::Shape::new(ROWS, COLS)).expect("the figure's warps lie inside the matrix")
        })
        .collect()
}

fn sectors(elements: &[u64]) -> usize {
    elements.iter().map(|e| e * ELEM_BYTES / SECTOR_BYTES).collect::<BTreeSet<_>>().len()
}

fn warp_addresses() -> String {
    let cell = 8.0;
    let (left, top, gap) = (30.0, 112.0, 60.0);
    let panel_w = COLS as f64 * cell;
    let mut fig = Figure::new(
        left + 2.0 * panel_w + gap + 16.0,
        top + ROWS as f64 * cell + 40.0,
        "The cells the first four warps of a block read from a 32 by 40 row-major matrix: with x walking columns each \
         warp reads 32 neighbouring floats in 4 sectors; with x walking rows each warp reads down a column, one sector \
         per lane",
    );
    let items: Vec<(&str, String)> = (0..WARPS).map(|w| (TINTS[w as usize], format!("warp {w}"))).collect();
    let items: Vec<(&str, &str)> = items.iter().map(|(c, s)| (*c, s.as_str())).collect();
    let end = fig.legend(left, 14.0, &items);
    fig.text(end, 14.0, 12.0, Anchor::Start, INK, &format!("block {DEMO_BLOCK}, blockIdx (0, 0)"));
    fig.text(
        left,
        36.0,
        12.0,
        Anchor::Start,
        INK,
        &format!("outlined: 32-byte sectors, {} floats each", SECTOR_BYTES / ELEM_BYTES),
    );
    for (i, mapping) in [Mapping::XToCol, Mapping::XToRow].into_iter().enumerate() {
        let grid = Grid::new(left + i as f64 * (panel_w + gap), top, cell, cell, ROWS, COLS).with_rules(0.0);
        let warps: Vec<Vec<u64>> = (0..WARPS).map(|w| warp_elements(mapping, w)).collect();
        let warp_of = |r: u64, c: u64| warps.iter().position(|e| e.contains(&(r * COLS + c)));
        grid.draw(&mut fig, |r, c| Some(warp_of(r, c).map_or(PLAIN, |w| TINTS[w])), |_, _| None, 8.0);
        grid.boundaries(&mut fig, |r, c| (r * COLS + c) * ELEM_BYTES / SECTOR_BYTES, CELL_INK, 0.6);
        let w0 = &warps[0];
        fig.bold(
            grid.x,
            top - 52.0,
            13.0,
            Anchor::Start,
            INK,
            &format!(
                "{} (threadIdx.x walks {})",
                mapping.name(),
                match mapping {
                    Mapping::XToCol => "columns",
                    Mapping::XToRow => "rows",
                }
            ),
        );
        fig.text(
            grid.x,
            top - 35.0,
            12.0,
            Anchor::Start,
            INK,
            &format!("warp 0 reads offsets {}, {}, {}, ..., {}", w0[0], w0[1], w0[2], w0[w0.len() - 1]),
        );
        let per_warp: BTreeSet<usize> = warps.iter().map(|e| sectors(e)).collect();
        let per_warp: Vec<String> = per_warp.iter().map(|s| s.to_string()).collect();
        fig.text(grid.x, top - 18.0, 12.0, Anchor::Start, INK, &format!("{} sectors per warp", per_warp.join(" or ")));
    }
    fig.text(
        left,
        top + ROWS as f64 * cell + 18.0,
        12.0,
        Anchor::Start,
        INK,
        &format!("{ROWS}x{COLS} matrix of 4-byte floats, row-major, starting on a sector boundary"),
    );
    fig.finish()
}
