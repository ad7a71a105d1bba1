//! K.4's figures: where the row-only check's stray stores land, and how many
//! rows they leave wrong over block orders. Both are drawn from the
//! simulator's own runs ([`run_fill`], [`explore_block_rows`],
//! [`explore_shuffles`]), not from the reasoning about them.

use crate::{
    explore_block_rows, explore_shuffles, launch_plan, marker, run_fill, Fill, Outcomes, LARGE_BLOCK, LARGE_SHAPE,
    LARGE_SHUFFLES, SENTINEL, SOURCE_BLOCK, SOURCE_SHAPE,
};
use ktrav::BlockOrder;
use ktrav_figure::{bar_chart, Anchor, Figure, Grid, BLUE, CELL_INK, INK, ORANGE, PLAIN, RED, TINTS};

/// Every figure of the K.4 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k4-stray-stores.svg", stray_stores()), ("k4-rows-wrong.svg", rows_wrong())]
}

/// The worked example's reverse run: every cell's value, the stray
/// threads beside their row, and an arrow from each stray to where it stored.
fn stray_stores() -> String {
    let (rows, cols) = (SOURCE_SHAPE.rows, SOURCE_SHAPE.cols);
    let plan = launch_plan(SOURCE_SHAPE, SOURCE_BLOCK).expect("the source's launch is valid");
    let (cfg, pad) = (plan.cfg, plan.padding_rows);
    let buf = run_fill(&plan, &BlockOrder::Reverse, Fill::RowOnly);
    let strays: Vec<((u64, u64), u64)> =
        buf.log().iter().filter(|((_, wc), _)| *wc >= cols).map(|&(by, s)| (by, s.index)).collect();
    let extra = cfg.threads_x() - cols;

    let grid = Grid::new(64.0, 66.0, 50.0, 34.0, rows + pad, cols);
    let ghosts = Grid::new(grid.right() + 14.0, grid.y, grid.cell_w + 6.0, grid.cell_h, rows, extra);
    let mut fig = Figure::new(
        ghosts.right() + 16.0,
        grid.bottom() + 50.0,
        "The 4 by 10 matrix after the row-only-checked fill ran its blocks in reverse: each row's two threads past \
         the last column store into the first two cells of the next row, after that row was written, so rows 1 to 3 \
         start with the row above's markers, and the last row's strays land in the padding",
    );
    let wrong = |r: u64, c: u64| {
        let want = if r < rows { marker(r, c) } else { SENTINEL };
        buf.get(r, c) != want
    };
    grid.draw(
        &mut fig,
        |r, c| {
            Some(if wrong(r, c) {
                ORANGE
            } else if r < rows {
                TINTS[0]
            } else {
                PLAIN
            })
        },
        |r, c| Some(format!("{}", buf.get(r, c))),
        12.0,
    );
    ghosts.draw(&mut fig, |_, _| Some(PLAIN), |_, _| None, 11.0);
    for r in 0..rows {
        for c in 0..extra {
            let (x, y) = ghosts.centre(r, c);
            fig.text(x, y - 7.0, 10.0, Anchor::Middle, CELL_INK, &format!("({r},{})", cols + c));
        }
    }
    ghosts.frame(&mut fig, (0, 0), (rows, extra), RED, 2.0, true);
    grid.frame(&mut fig, (rows, 0), (pad, cols), INK, 2.0, true);
    for r in 0..rows + pad {
        let (_, y) = grid.centre(r, 0);
        let name = if r < rows { format!("row {r}") } else { "padding".to_string() };
        fig.text(grid.x - 8.0, y, 12.0, Anchor::End, INK, &name);
    }
    for ((wr, wc), index) in &strays {
        let (x, y) = ghosts.centre(*wr, wc - cols);
        let (lr, lc) = (index / cols, index % cols);
        fig.text(x, y + 8.0, 10.0, Anchor::Middle, RED, &format!("\u{2192} ({lr},{lc})"));
    }
    fig.legend(
        grid.x,
        16.0,
        &[(TINTS[0], "right value"), (ORANGE, "wrong value"), (PLAIN, "untouched padding / stray thread")],
    );
    fig.text(
        grid.x,
        40.0,
        12.0,
        Anchor::Start,
        INK,
        &format!(
        "{rows}x{cols} matrix, blocks of {}x{} run in reverse; each cell shows what it holds, the marker row*1000+col",
        SOURCE_BLOCK.x, SOURCE_BLOCK.y
    ),
    );
    fig.text(ghosts.x, ghosts.bottom() + 12.0, 11.0, Anchor::Start, INK, "threads past the");
    fig.text(ghosts.x, ghosts.bottom() + 26.0, 11.0, Anchor::Start, INK, "last column, and");
    fig.text(ghosts.x, ghosts.bottom() + 40.0, 11.0, Anchor::Start, INK, "where they store");
    fig.finish()
}

/// How many rows below row 0 end wrong: over every order of the 4x10
/// example's block rows, and over the seeded shuffles of the larger case.
fn rows_wrong() -> String {
    let small = explore_block_rows(&launch_plan(SOURCE_SHAPE, SOURCE_BLOCK).expect("valid"));
    let big_plan = launch_plan(LARGE_SHAPE, LARGE_BLOCK).expect("valid");
    let big_cfg = big_plan.cfg;
    let big = explore_shuffles(&big_plan, 0, LARGE_SHUFFLES);
    let (large_rows, large_cols) = (LARGE_SHAPE.rows, LARGE_SHAPE.cols);
    let mut fig = Figure::new(
        750.0,
        270.0,
        "Histograms of how many rows the row-only check leaves wrong: over all 24 orders of the 4 by 10 example's block \
         rows, from 0 to 3 rows; over 1000 shuffles of the 24 by 100 case's 42 blocks, every count from 0 to 23 occurs",
    );
    let (top, h) = (74.0, 150.0);
    let small_bars = bars(&small, SOURCE_SHAPE.rows - 1);
    bar_chart(&mut fig, (20.0, top, 130.0, h), &small_bars, BLUE);
    let big_bars = bars(&big, large_rows - 1);
    bar_chart(&mut fig, (190.0, top, 550.0, h), &big_bars, ORANGE);
    fig.bold(20.0, 16.0, 13.0, Anchor::Start, INK, &format!("{} matrix", SOURCE_SHAPE));
    fig.text(20.0, 36.0, 12.0, Anchor::Start, INK, &format!("all {} block-row orders", small.runs));
    fig.bold(
        190.0,
        16.0,
        13.0,
        Anchor::Start,
        INK,
        &format!("{large_rows}x{large_cols} matrix, {}x{} blocks", LARGE_BLOCK.x, LARGE_BLOCK.y),
    );
    fig.text(
        190.0,
        36.0,
        12.0,
        Anchor::Start,
        INK,
        &format!("{} seeded shuffles of all {} blocks", big.runs, big_cfg.blocks()),
    );
    fig.text(20.0, top + h + 30.0, 12.0, Anchor::Start, INK, "rows wrong");
    fig.text(
        190.0,
        top + h + 30.0,
        12.0,
        Anchor::Start,
        INK,
        &format!("rows wrong, of the {} below row 0", large_rows - 1),
    );
    fig.finish()
}

/// One bar per count of wrong rows, `0..=max`, with how many runs left it.
fn bars<K>(o: &Outcomes<K>, max: u64) -> Vec<(String, u64)> {
    (0..=max).map(|k| (k.to_string(), o.by_wrong_rows.get(&k).map_or(0, |e| e.0))).collect()
}
