//! K.1's figure: which accesses hit and which miss, element by element, when
//! the chapter's cache simulator is fed each traversal of the worked
//! example's 8x64 matrix.

use crate::{simulate, Cache, CacheConfig, CacheStats, Traversal, ELEM_BYTES, SOURCE_CACHE};
use ktrav::StorageOrder;
use ktrav_figure::{Anchor, Figure, Grid, BLUE, CELL_INK, INK, ORANGE};

/// The worked example's matrix.
pub const ROWS: u64 = 8;
pub const COLS: u64 = 64;

/// Every figure of the K.1 page: (file name under `book/figures/`, SVG).
pub fn figures() -> Vec<(&'static str, String)> {
    vec![("k1-hits-and-misses.svg", hits_and_misses())]
}

/// Whether each element's access hit, indexed `[row][col]`, for one storage
/// order and traversal: the addresses `simulate` feeds its cache, in the
/// same order, into the same [`Cache`].
pub fn hit_map(rows: u64, cols: u64, storage: StorageOrder, traversal: Traversal, cfg: CacheConfig) -> Vec<Vec<bool>> {
    let mut cache = Cache::new(cfg);
    let mut hit = vec![vec![false; cols as usize]; rows as usize];
    let cells: Vec<(u64, u64)> = match traversal {
        Traversal::RowOuter => (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c))).collect(),
        Traversal::ColOuter => (0..cols).flat_map(|c| (0..rows).map(move |r| (r, c))).collect(),
    };
    for (r, c) in cells {
        hit[r as usize][c as usize] = cache.access(storage.offset(ktrav::Shape::new(rows, cols), r, c) * ELEM_BYTES);
    }
    hit
}

fn hits_and_misses() -> String {
    let cases = [
        (StorageOrder::RowMajor, Traversal::RowOuter, "follows"),
        (StorageOrder::RowMajor, Traversal::ColOuter, "crosses"),
        (StorageOrder::ColMajor, Traversal::RowOuter, "crosses"),
    ];
    let (cell, panel_gap, top) = (10.0, 52.0, 70.0);
    let panel_h = ROWS as f64 * cell;
    let mut fig = Figure::new(
        40.0 + COLS as f64 * cell + 20.0,
        top + cases.len() as f64 * (panel_h + panel_gap) - 10.0,
        "Hits and misses of every access to an 8x64 matrix with a four-line cache: row-major storage read row by row, \
         row-major read column by column, and column-major read row by row",
    );
    fig.legend(40.0, 14.0, &[(BLUE, "hit"), (ORANGE, "miss")]);
    fig.text(170.0, 14.0, 12.0, Anchor::Start, INK, "outlined: the 64-byte cache lines, 16 floats each");
    for (i, (storage, traversal, how)) in cases.into_iter().enumerate() {
        let grid = Grid::new(40.0, top + i as f64 * (panel_h + panel_gap), cell, cell, ROWS, COLS).with_rules(0.0);
        let hit = hit_map(ROWS, COLS, storage, traversal, SOURCE_CACHE);
        let hits = hit.iter().flatten().filter(|&&h| h).count() as u64;
        let stats = CacheStats { hits, misses: ROWS * COLS - hits };
        assert_eq!(
            stats,
            simulate(ktrav::Shape::new(ROWS, COLS), storage, traversal, SOURCE_CACHE),
            "the figure replays simulate()"
        );
        let loop_name = match traversal {
            Traversal::RowOuter => "row by row",
            Traversal::ColOuter => "column by column",
        };
        fig.bold(
            grid.x,
            grid.y - 24.0,
            13.0,
            Anchor::Start,
            INK,
            &format!("{storage} storage read {loop_name} ({how} it): {} hits, {} misses", stats.hits, stats.misses),
        );
        grid.draw(&mut fig, |r, c| Some(if hit[r as usize][c as usize] { BLUE } else { ORANGE }), |_, _| None, 8.0);
        let line =
            |r: u64, c: u64| storage.offset(ktrav::Shape::new(ROWS, COLS), r, c) * ELEM_BYTES / SOURCE_CACHE.line_bytes;
        grid.boundaries(&mut fig, line, CELL_INK, 1.5);
        grid.column_numbers(&mut fig, 16, 10.0);
        fig.text(grid.x - 6.0, grid.y + panel_h / 2.0, 10.0, Anchor::End, INK, "row");
    }
    fig.finish()
}
