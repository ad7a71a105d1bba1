//! K.7's figure: which launch computes each cell, for the wavefront (one
//! launch per anti-diagonal) and the tiled wavefront (one launch per
//! diagonal of tiles, a barrier step per diagonal inside a tile). Both are
//! replays of the host loops with the chapter's own kernel bodies.

use crate::{lattice_tiled, lattice_wavefront, run_plan, tiled_plan, tiled_steps, wavefront_plan, Interleaving, Table};
use ktrav::figure::{Anchor, Figure, Grid, CELL_INK, INK, TINTS};
use ktrav::{BlockOrder, Shape};

/// The figure's table and tile.
pub const ROWS: u64 = 6;
pub const COLS: u64 = 9;
pub const TILE: u32 = 4;
pub const BLOCK_X: u32 = 4;

/// Every figure of the K.7 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k7-diagonals-and-tiles.svg", diagonals_and_tiles())]
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
        run_plan(&mut grid, std::slice::from_ref(launch), 1, &BlockOrder::Forward, Interleaving::OneAtATime, |t, _, g, d| {
            lattice_wavefront(t, &mut Tap { table: g, stored: &mut stored }, rows, cols, d)
        });
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
        run_plan(&mut grid, std::slice::from_ref(launch), tiled_steps(tile), &BlockOrder::Forward, Interleaving::OneAtATime, |t, step, g, d| {
            lattice_tiled(t, step, &mut Tap { table: g, stored: &mut stored }, rows, cols, d);
            steps.extend(stored.drain(..).map(|at| (at, step)));
        });
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
    fig.bold(g2.x, top - 46.0, 13.0, Anchor::Start, INK, &format!("tiled, {TILE}x{TILE} tiles: {tile_launches} launches"));
    fig.text(g2.x, top - 28.0, 12.0, Anchor::Start, INK, "colour = launch, number = barrier step in the tile");
    let items: Vec<String> = (0..tile_launches).map(|k| k.to_string()).collect();
    let items: Vec<(&str, &str)> = items.iter().enumerate().map(|(k, s)| (TINTS[k % TINTS.len()], s.as_str())).collect();
    fig.text(g2.x, top + ROWS as f64 * cell + 22.0, 12.0, Anchor::Start, INK, "launch:");
    fig.legend(g2.x + 52.0, top + ROWS as f64 * cell + 22.0, &items);
    fig.text(g1.x, top + ROWS as f64 * cell + 22.0, 12.0, Anchor::Start, INK, &format!("{ROWS}x{COLS} table"));
    fig.finish()
}
