//! K.2's figure: the 32-wide shared tile laid out over the 32 banks, square
//! and padded, with the words one warp's column read touches. The words come
//! from the simulator's trace of a real launch, the banks from [`bank`].

use crate::{bank, numbered, tiled_transpose, warp_request, TileLayout, BANKS, TILE};
use ktrav_figure::{Anchor, Figure, Grid, CELL_INK, INK, ORANGE, TINTS};

/// Tile rows alternate between these two shades; padding words are grey.
const ROW_SHADES: [&str; 2] = [TINTS[0], "#c6dbf5"];
const PADDING: &str = "#7d8794";
use ktrav::BlockOrder;

/// Every figure of the K.2 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k2-banks-square-vs-padded.svg", banks())]
}

/// The words warp 0 of the first block reads in phase 1 (`tile[tx][ty]`),
/// traced on a `TILE x TILE` matrix.
pub fn column_read_words(layout: TileLayout) -> Vec<u64> {
    let run =
        tiled_transpose(&numbered(ktrav::Shape::new(TILE as u64, TILE as u64)), TILE, layout, &BlockOrder::Forward)
            .expect("a one-tile launch is valid");
    run.trace.iter().filter(|a| a.block == 0 && a.phase == 1 && a.warp == 0).map(|a| a.word).collect()
}

fn banks() -> String {
    let cell = 10.0;
    let (left, top, gap) = (34.0, 96.0, 56.0);
    let panel_w = BANKS as f64 * cell;
    let rows_of = |layout: TileLayout| (TILE as u64 * layout.stride(TILE)).div_ceil(BANKS);
    let tallest = rows_of(TileLayout::Padded) as f64 * cell;
    let mut fig = Figure::new(
        left + 2.0 * panel_w + gap + 16.0,
        top + tallest + 34.0,
        "Shared memory as rows of 32 banks, for the 32 by 32 tile and the 32 by 33 padded tile: one warp's column read \
         lands all 32 lanes in bank 0 of the square tile, and in 32 different banks of the padded one",
    );
    fig.legend(left, 14.0, &[(ORANGE, "read by warp 0's column load"), (PADDING, "padding word")]);
    fig.text(
        left,
        36.0,
        12.0,
        Anchor::Start,
        INK,
        "tile rows alternate in shade; each row of cells is 32 consecutive words",
    );
    for (i, layout) in [TileLayout::Square, TileLayout::Padded].into_iter().enumerate() {
        let stride = layout.stride(TILE);
        let grid =
            Grid::new(left + i as f64 * (panel_w + gap), top, cell, cell, rows_of(layout), BANKS).with_rules(0.0);
        let words = column_read_words(layout);
        let req = warp_request(&words);
        let word_at = |r: u64, c: u64| r * BANKS + c;
        let in_tile = |w: u64| w < TILE as u64 * stride;
        grid.draw(
            &mut fig,
            |r, c| {
                let w = word_at(r, c);
                Some(if !in_tile(w) {
                    return None;
                } else if words.contains(&w) {
                    ORANGE
                } else if w % stride >= TILE as u64 {
                    PADDING
                } else {
                    ROW_SHADES[(w / stride % 2) as usize]
                })
            },
            |_, _| None,
            8.0,
        );
        debug_assert!(words.iter().all(|&w| bank(w) == w % BANKS));
        grid.boundaries(&mut fig, |r, c| word_at(r, c) / stride, CELL_INK, 0.6);
        fig.bold(grid.x, top - 40.0, 13.0, Anchor::Start, INK, &layout.declaration(TILE));
        fig.text(
            grid.x,
            top - 24.0,
            12.0,
            Anchor::Start,
            INK,
            &format!(
                "{} lanes, {} bank{}, {}",
                req.lanes,
                req.distinct_banks,
                if req.distinct_banks == 1 { "" } else { "s" },
                if req.degree == 1 { "conflict-free".to_string() } else { format!("{}-way conflict", req.degree) }
            ),
        );
        for b in [0, 8, 16, 24, 31] {
            let (x, _) = grid.centre(0, b);
            fig.text(x, top - 7.0, 9.0, Anchor::Middle, INK, &b.to_string());
        }
    }
    fig.text(left, top + tallest + 18.0, 12.0, Anchor::Start, INK, "bank = word mod 32 (columns 0 to 31)");
    fig.finish()
}
