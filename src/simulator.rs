//! The simulator page's figure: a grid of blocks laid over a matrix whose
//! sides are not multiples of the block, drawn from what [`launch`] hands
//! the kernel, so the picture is the simulator's, not a sketch of it. The
//! page belongs to no chapter, so the root package draws it.

use ktrav::{launch, BlockOrder, Dim2, LaunchConfig, Shape};
use ktrav_figure::{Anchor, Figure, Grid, BLUE, INK, PLAIN, RED, TINTS};

/// The page's small launch: a 3-row, 5-column matrix under 2x2 blocks.
pub const ROWS: u64 = 3;
pub const COLS: u64 = 5;
pub const BLOCK: Dim2 = Dim2::new(2, 2);

/// Every figure of the simulator page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("simulator-ragged-grid.svg", ragged_grid())]
}

/// Each launched thread, as the simulator hands it over: which block it
/// belongs to (linear index), placed at its global (y, x).
fn ragged_grid() -> String {
    let cfg = LaunchConfig::covering(Shape::new(ROWS, COLS), BLOCK).expect("the page's launch is valid");
    let (ty, tx) = (cfg.threads_y(), cfg.threads_x());
    let mut block_of = vec![None; (ty * tx) as usize];
    launch(&cfg, &BlockOrder::Forward, |t| {
        block_of[(t.global_y() * tx + t.global_x()) as usize] = Some(t.linear_block())
    });
    let inside = |r: u64, c: u64| r < ROWS && c < COLS;
    let guarded = (0..ty).flat_map(|r| (0..tx).map(move |c| (r, c))).filter(|&(r, c)| !inside(r, c)).count();

    let grid = Grid::new(124.0, 62.0, 70.0, 46.0, ty, tx);
    let mut fig = Figure::new(grid.right() + 40.0, grid.bottom() + 60.0, &format!(
        "A {ROWS}x{COLS} matrix covered by a grid of {}x{} blocks of {}x{} threads: {} threads launched, {guarded} of them outside the matrix",
        cfg.grid.x, cfg.grid.y, BLOCK.x, BLOCK.y, cfg.total_threads()
    ));
    let block = |r: u64, c: u64| block_of[(r * tx + c) as usize].expect("every thread of the grid runs");
    grid.draw(
        &mut fig,
        |r, c| Some(if inside(r, c) { TINTS[block(r, c) as usize % TINTS.len()] } else { PLAIN }),
        |r, c| Some(if inside(r, c) { format!("({r}, {c})") } else { "guarded".to_string() }),
        12.0,
    );
    for by in 0..cfg.grid.y as u64 {
        for bx in 0..cfg.grid.x as u64 {
            let b = BLOCK;
            grid.frame(&mut fig, (by * b.y as u64, bx * b.x as u64), (b.y as u64, b.x as u64), BLUE, 2.5, false);
        }
    }
    grid.frame(&mut fig, (0, 0), (ROWS, COLS), RED, 3.0, true);
    for bx in 0..cfg.grid.x as u64 {
        let (x, _) = grid.corner(0, bx * BLOCK.x as u64);
        fig.text(
            x + grid.cell_w * BLOCK.x as f64 / 2.0,
            grid.y - 14.0,
            13.0,
            Anchor::Middle,
            INK,
            &format!("blockIdx.x = {bx}"),
        );
    }
    for by in 0..cfg.grid.y as u64 {
        let (_, y) = grid.corner(by * BLOCK.y as u64, 0);
        fig.text(
            grid.x - 10.0,
            y + grid.cell_h * BLOCK.y as f64 / 2.0,
            13.0,
            Anchor::End,
            INK,
            &format!("blockIdx.y = {by}"),
        );
    }
    fig.text(
        grid.x,
        18.0,
        13.0,
        Anchor::Start,
        INK,
        &format!(
            "{ROWS}x{COLS} matrix (dashed), {}x{} blocks of {}x{}: {} threads, {guarded} guarded",
            cfg.grid.x,
            cfg.grid.y,
            BLOCK.x,
            BLOCK.y,
            cfg.total_threads()
        ),
    );
    fig.text(
        grid.x,
        grid.bottom() + 24.0,
        12.0,
        Anchor::Start,
        INK,
        "each in-bounds thread is labelled (row, col) = (global y, global x);",
    );
    fig.text(grid.x, grid.bottom() + 44.0, 12.0, Anchor::Start, INK, "the fill colour is its block");
    fig.finish()
}
