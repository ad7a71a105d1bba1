//! K.7's figure: which launch computes each cell, for the wavefront (one
//! launch per anti-diagonal) and the tiled wavefront (one launch per
//! diagonal of tiles, a barrier step per diagonal inside a tile). Both are
//! replays of the host loops with the chapter's own kernel bodies. And the
//! single launch over the whole table under four block orders, each run
//! through the simulator and compared with the scalar DP cell by cell.

use crate::{
    lattice_tiled, lattice_wavefront, run_plan, scalar_dp, simulate_single_launch, single_launch_plan, tiled_plan,
    tiled_steps, wavefront_plan, Interleaving, Table,
};
use ktrav::{BlockOrder, Dim2, Shape};
use ktrav_figure::{Anchor, Figure, Grid, CELL_INK, INK, ORANGE, TINTS};

/// The figure's table and tile.
pub const ROWS: u64 = 6;
pub const COLS: u64 = 9;
pub const TILE: u32 = 4;
pub const BLOCK_X: u32 = 4;

/// Every figure of the K.7 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k7-diagonals-and-tiles.svg", diagonals_and_tiles()), ("k7-single-launch-orders.svg", single_launch_orders())]
}

/// The single-launch figure's table and blocks.
pub const SINGLE_SHAPE: Shape = Shape::new(16, 16);
pub const SINGLE_BLOCK: Dim2 = Dim2::new(4, 4);

/// The block orders the single-launch figure runs, by name: forward (row of
/// blocks by row of blocks), column of blocks by column, by anti-diagonal of
/// blocks (`bx + by`, top row first), and reversed. `grid_x x grid_y` blocks.
pub fn block_orders(grid_x: u64, grid_y: u64) -> Vec<(&'static str, BlockOrder)> {
    let id = |bx: u64, by: u64| by * grid_x + bx;
    let columns = (0..grid_x).flat_map(|bx| (0..grid_y).map(move |by| id(bx, by))).collect();
    let mut diagonal: Vec<(u64, u64)> = (0..grid_y).flat_map(|by| (0..grid_x).map(move |bx| (bx, by))).collect();
    diagonal.sort_by_key(|&(bx, by)| (bx + by, by));
    vec![
        ("forward", BlockOrder::Forward),
        ("column by column", BlockOrder::Explicit(columns)),
        ("anti-diagonal", BlockOrder::Explicit(diagonal.into_iter().map(|(bx, by)| id(bx, by)).collect())),
        ("reversed", BlockOrder::Reverse),
    ]
}

/// For each block order of [`block_orders`]: its name, the run position of
/// every block (by linear index), and which cells (row-major) the single
/// launch leaves different from the scalar DP, threads one at a time.
pub fn single_launch_runs(shape: Shape, block: Dim2) -> Vec<(&'static str, Vec<u64>, Vec<bool>)> {
    let cfg = single_launch_plan(shape, block).expect("valid launch").cfg;
    let (gx, gy) = (cfg.grid.x as u64, cfg.grid.y as u64);
    let want = scalar_dp(shape);
    block_orders(gx, gy)
        .into_iter()
        .map(|(name, order)| {
            let mut position = vec![0; (gx * gy) as usize];
            for (i, b) in order.sequence(gx * gy).into_iter().enumerate() {
                position[b as usize] = i as u64;
            }
            let grid = simulate_single_launch(shape, block, &order, Interleaving::OneAtATime).expect("valid launch");
            let wrong = grid.iter().zip(&want).map(|(a, b)| a != b).collect();
            (name, position, wrong)
        })
        .collect()
}

fn single_launch_orders() -> String {
    let (rows, cols) = (SINGLE_SHAPE.rows, SINGLE_SHAPE.cols);
    let (bw, bh) = (SINGLE_BLOCK.x as u64, SINGLE_BLOCK.y as u64);
    let runs = single_launch_runs(SINGLE_SHAPE, SINGLE_BLOCK);
    let (cell, left, top, gap) = (13.0, 16.0, 70.0, 34.0);
    let panel = cols as f64 * cell;
    let count = |wrong: &[bool]| wrong.iter().filter(|&&w| w).count();
    let summary: Vec<String> = runs.iter().map(|(name, _, wrong)| format!("{name} {} wrong", count(wrong))).collect();
    let mut fig = Figure::new(
        left + runs.len() as f64 * (panel + gap) - gap + 16.0,
        top + rows as f64 * cell + 46.0,
        &format!(
            "The {rows} by {cols} lattice table filled by one launch of {bw} by {bh} blocks, threads one at a time, under \
             four block orders, each block numbered by when it runs and each cell orange where it differs from the \
             scalar DP: {}. An order that runs every block after the blocks above it and to its left fills the table \
             right",
            summary.join(", ")
        ),
    );
    for (i, (name, position, wrong)) in runs.iter().enumerate() {
        let g = Grid::new(left + i as f64 * (panel + gap), top, cell, cell, rows, cols).with_rules(0.0);
        g.draw(
            &mut fig,
            |r, c| Some(if wrong[(r * cols + c) as usize] { ORANGE } else { TINTS[0] }),
            |_, _| None,
            10.0,
        );
        let blocks_across = cols.div_ceil(bw);
        g.boundaries(&mut fig, |r, c| (r / bh) * blocks_across + c / bw, CELL_INK, 1.5);
        for (b, at) in position.iter().enumerate() {
            let (by, bx) = (b as u64 / blocks_across, b as u64 % blocks_across);
            let (x, y) = g.corner(by * bh, bx * bw);
            let (cx, cy) = (x + bw as f64 * cell / 2.0, y + bh as f64 * cell / 2.0);
            fig.bold(cx, cy, 12.0, Anchor::Middle, CELL_INK, &(at + 1).to_string());
        }
        let n = count(wrong);
        fig.bold(g.x, top - 40.0, 13.0, Anchor::Start, INK, name);
        fig.text(g.x, top - 20.0, 12.0, Anchor::Start, INK, &format!("{n} of {} cells wrong", rows * cols));
    }
    let y = top + rows as f64 * cell + 24.0;
    let end = fig.legend(left, y, &[(TINTS[0], "same as the scalar DP"), (ORANGE, "wrong")]);
    fig.text(end, y, 12.0, Anchor::Start, INK, "number = when the block runs");
    fig.finish()
}

/// A table that notes every store, so a replay can say who wrote a cell.
struct Tap<'a> {
    table: &'a mut dyn Table,
    stored: &'a mut Vec<u64>,
}

impl Table for Tap<'_> {
    fn load(&self, at: u64) -> u64 {
        self.table.load(at)
    }
    fn store(&mut self, at: u64, value: u64) {
        self.stored.push(at);
        self.table.store(at, value);
    }
}

/// For each cell (row-major), the launch of the wavefront plan that wrote
/// it: the plan and kernel `simulate_wavefront` runs.
pub fn wavefront_launches(rows: u64, cols: u64, block_x: u32) -> Vec<u64> {
    let shape = Shape::new(rows, cols);
    let plan = wavefront_plan(shape, block_x).expect("valid launches");
    let mut grid = vec![0u64; shape.elements() as usize];
    let mut launch_of = vec![u64::MAX; grid.len()];
    let mut stored = Vec::new();
    for (i, launch) in plan.iter().enumerate() {
        run_plan(
            &mut grid,
            std::slice::from_ref(launch),
            1,
            &BlockOrder::Forward,
            Interleaving::OneAtATime,
            |t, _, g, d| lattice_wavefront(t, &mut Tap { table: g, stored: &mut stored }, rows, cols, d),
        );
        for at in stored.drain(..) {
            launch_of[at as usize] = i as u64;
        }
    }
    launch_of
}

/// For each cell (row-major), the launch of the tiled plan and the barrier
/// step inside it that wrote it.
pub fn tiled_steps_of(rows: u64, cols: u64, tile: u32) -> Vec<(u64, usize)> {
    let shape = Shape::new(rows, cols);
    let plan = tiled_plan(shape, tile).expect("valid launches");
    let mut grid = vec![0u64; shape.elements() as usize];
    let mut when = vec![(u64::MAX, usize::MAX); grid.len()];
    let mut stored = Vec::new();
    for (i, launch) in plan.iter().enumerate() {
        let mut steps = Vec::new();
        run_plan(
            &mut grid,
            std::slice::from_ref(launch),
            tiled_steps(tile),
            &BlockOrder::Forward,
            Interleaving::OneAtATime,
            |t, step, g, d| {
                lattice_tiled(t, step, &mut Tap { table: g, stored: &mut stored }, rows, cols, d);
                steps.extend(stored.drain(..).map(|at| (at, step)));
            },
        );
        for (at, step) in steps {
            when[at as usize] = (i as u64, step);
        }
    }
    when
}

fn diagonals_and_tiles() -> String {
    let (cell, left, top, gap) = (36.0, 30.0, 80.0, 56.0);
    let panel_w = COLS as f64 * cell;
    let mut fig = Figure::new(
        left + 2.0 * panel_w + gap + 16.0,
        top + ROWS as f64 * cell + 44.0,
        "A 6 by 9 table filled by the wavefront, each cell numbered and coloured by the launch that computes it: the \
         14 anti-diagonals, row plus column; and by the tiled wavefront with 4 by 4 tiles, coloured by its 4 launches, \
         one per diagonal of tiles, and numbered by the barrier step inside the tile",
    );
    let wave = wavefront_launches(ROWS, COLS, BLOCK_X);
    let tiled = tiled_steps_of(ROWS, COLS, TILE);
    let at = |r: u64, c: u64| (r * COLS + c) as usize;

    let g1 = Grid::new(left, top, cell, cell, ROWS, COLS);
    g1.draw(&mut fig, |r, c| Some(TINTS[(wave[at(r, c)] % 2) as usize]), |r, c| Some(wave[at(r, c)].to_string()), 13.0);
    let launches = wave.iter().max().map_or(0, |m| m + 1);
    fig.bold(g1.x, top - 46.0, 13.0, Anchor::Start, INK, &format!("wavefront: {launches} launches"));
    fig.text(g1.x, top - 28.0, 12.0, Anchor::Start, INK, "number = launch = anti-diagonal row + col");

    let g2 = Grid::new(left + panel_w + gap, top, cell, cell, ROWS, COLS);
    g2.draw(
        &mut fig,
        |r, c| Some(TINTS[tiled[at(r, c)].0 as usize % TINTS.len()]),
        |r, c| Some(tiled[at(r, c)].1.to_string()),
        13.0,
    );
    let tile = TILE as u64;
    g2.boundaries(&mut fig, |r, c| (r / tile) * COLS + c / tile, CELL_INK, 2.5);
    let tile_launches = tiled.iter().map(|w| w.0).max().map_or(0, |m| m + 1);
    fig.bold(
        g2.x,
        top - 46.0,
        13.0,
        Anchor::Start,
        INK,
        &format!("tiled, {TILE}x{TILE} tiles: {tile_launches} launches"),
    );
    fig.text(g2.x, top - 28.0, 12.0, Anchor::Start, INK, "colour = launch, number = barrier step in the tile");
    let items: Vec<String> = (0..tile_launches).map(|k| k.to_string()).collect();
    let items: Vec<(&str, &str)> =
        items.iter().enumerate().map(|(k, s)| (TINTS[k % TINTS.len()], s.as_str())).collect();
    fig.text(g2.x, top + ROWS as f64 * cell + 22.0, 12.0, Anchor::Start, INK, "launch:");
    fig.legend(g2.x + 52.0, top + ROWS as f64 * cell + 22.0, &items);
    fig.text(g1.x, top + ROWS as f64 * cell + 22.0, 12.0, Anchor::Start, INK, &format!("{ROWS}x{COLS} table"));
    fig.finish()
}
