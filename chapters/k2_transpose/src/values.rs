//! The numbers K.2's page quotes, computed here (see `book/values.txt`).
//!
//! Bytes per thread: what one thread of a kernel's block loads from the
//! input per tile, from the kernel's own launch (the tile and the block of
//! its plan) and the width of its accesses (`float2`, `float4` in its name,
//! else 4-byte floats). Each thread issues all of them before the barrier,
//! so this is what it can have in flight if the compiler issues them
//! together; for v1 on sm_90 it does not (`crate::sass_loads_in_flight`).

use crate::exercises::{MISSING_SYNCTHREADS, TRANSPOSE_EXERCISE};
use crate::{
    bank_figures, guard_bank_shapes, guards_leave_banks_alone, numbered, requests, tiled_transpose, validate,
    TileLayout, SOURCE_CASES, TILE, VERSIONS,
};
use ktrav::lab::simtrack::check_twin;
use ktrav::BlockOrder;
use ktrav::{Dim2, LaunchConfig, Shape};
use ktrav_term::progress::ProgressBar;

fn threads(cfg: &LaunchConfig) -> u64 {
    cfg.grid.x as u64 * cfg.grid.y as u64 * cfg.block.x as u64 * cfg.block.y as u64
}

/// A shape every version's plan covers without a grid-stride loop.
const PROBE: Shape = Shape::new(4096, 4096);

/// (kernel, bytes one thread loads per tile, loads it issues for them).
pub fn bytes_per_thread() -> Vec<(&'static str, u64, u64)> {
    let per_thread = |cfg: LaunchConfig| PROBE.elements() * 4 / threads(&cfg);
    let teaching = LaunchConfig::covering_strided(PROBE, Dim2::new(TILE, TILE)).expect("a 4096x4096 launch");
    let mut out = vec![("transpose_tile32_padded", per_thread(teaching), 1)];
    for v in &VERSIONS {
        let plan = (v.plan)(PROBE, 1).expect("a 4096x4096 plan");
        let bytes = per_thread(plan.cfg);
        out.push((v.kernel, bytes, bytes / v.access_bytes()));
    }
    out
}

/// The missing-barrier twin under the simulator track's schedules: how
/// many schedules there are, the most and the fewest any failing shape
/// fails under, the shapes failing under the fewest, and the shapes that
/// pass.
pub fn missing_barrier() -> (usize, usize, usize, String, String) {
    let check = check_twin(&TRANSPOSE_EXERCISE, &MISSING_SYNCTHREADS);
    let schedules = check.lines[0].schedules;
    let failing: Vec<_> = check.lines.iter().filter(|l| l.failed > 0).collect();
    let most = failing.iter().map(|l| l.failed).max().unwrap_or(0);
    let fewest = failing.iter().map(|l| l.failed).min().unwrap_or(0);
    let join = |v: Vec<String>| match v.len() {
        0 => "none".to_string(),
        1 => v[0].clone(),
        _ => format!("{} and {}", v[..v.len() - 1].join(", "), v[v.len() - 1]),
    };
    let at_fewest = join(failing.iter().filter(|l| l.failed == fewest).map(|l| l.shape.to_string()).collect());
    let passing = join(check.lines.iter().filter(|l| l.failed == 0).map(|l| l.shape.to_string()).collect());
    (schedules, most, fewest, at_fewest, passing)
}

/// The square matrix of the background that is not a multiple of the tile.
pub const UNGUARDED_SHAPE: Shape = Shape::new(40, 40);

/// The threads of `shape`'s launch under `w`-wide tiles whose unguarded
/// phase would touch memory past the end: (phase 0's reads, phase 1's
/// writes), both flat indices checked against the element count only.
pub fn unguarded_past_end(shape: Shape, w: u32) -> (u64, u64) {
    let cfg = validate(shape, w).expect("a valid shape");
    let (w, rows, cols) = (w as u64, shape.rows, shape.cols);
    let (mut reads, mut writes) = (0, 0);
    ktrav::launch(&cfg, &BlockOrder::Forward, |t| {
        let (tx, ty) = (t.thread_idx.x as u64, t.thread_idx.y as u64);
        let (bx, by) = (t.block_idx.x as u64, t.block_idx.y as u64);
        reads += u64::from((by * w + ty) * cols + bx * w + tx >= shape.elements());
        writes += u64::from((bx * w + ty) * rows + by * w + tx >= shape.elements());
    });
    (reads, writes)
}

/// The threads of `shape`'s launch under `w`-wide tiles that fail phase
/// 1's guard yet whose flat output index stays inside the buffer: their
/// column lies past the last one, so the index wraps onto the next output
/// row. Unguarded, each writes a tile word phase 0 never stored (the thread
/// that would have stored it failed phase 0's guard) over an element that
/// belongs to another thread.
pub fn unguarded_wrapped_writes(shape: Shape, w: u32) -> u64 {
    let cfg = validate(shape, w).expect("a valid shape");
    let (w, rows, cols) = (w as u64, shape.rows, shape.cols);
    let mut wrapped = 0;
    ktrav::launch(&cfg, &BlockOrder::Forward, |t| {
        let (tx, ty) = (t.thread_idx.x as u64, t.thread_idx.y as u64);
        let (out_row, out_col) = (t.block_idx.x as u64 * w + ty, t.block_idx.y as u64 * w + tx);
        let guarded_off = out_row >= cols || out_col >= rows;
        wrapped += u64::from(guarded_off && out_row * rows + out_col < shape.elements());
    });
    wrapped
}

/// The column read of the square and the padded 32-wide tile on one shape:
/// the most active lanes of a warp, and each layout's worst conflict degree.
pub fn column_read(shape: Shape) -> (u32, u32, u32) {
    let worst = |layout| {
        let run = tiled_transpose(&numbered(shape), TILE, layout, &BlockOrder::Forward).expect("a valid shape");
        let reqs = requests(&run.trace, 1);
        (reqs.iter().map(|r| r.lanes).max().unwrap_or(0), reqs.iter().map(|r| r.degree).max().unwrap_or(0))
    };
    let (lanes, square) = worst(TileLayout::Square);
    (lanes, square, worst(TileLayout::Padded).1)
}

/// The page's second try-it command: a 16-wide tile on a ragged shape.
pub const NARROW: (Shape, u32) = (Shape::new(33, 65), 16);

/// The padded tile at the narrow try-it shape: for the store and then the
/// load phase, how many warp requests conflict (degree above 1) out of how
/// many there are.
pub fn narrow_padded_conflicts() -> [(usize, usize); 2] {
    let (shape, width) = NARROW;
    let run =
        tiled_transpose(&numbered(shape), width, TileLayout::Padded, &BlockOrder::Forward).expect("a valid shape");
    [0, 1].map(|phase| {
        let reqs = requests(&run.trace, phase);
        (reqs.iter().filter(|r| r.degree > 1).count(), reqs.len())
    })
}

/// `n` as a power of two with a superscript exponent (`2²⁶`), or in
/// digits if it is none.
fn power_of_two(n: u64) -> String {
    if !n.is_power_of_two() {
        return n.to_string();
    }
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let exp: String =
        n.trailing_zeros().to_string().chars().map(|d| SUP[d.to_digit(10).expect("a digit") as usize]).collect();
    format!("2{exp}")
}

/// How the rounds of the kernel's grid-stride loop spread over the block
/// rows of `cfg` on `shape`: the fewest any block row walks, and how many
/// block rows walk the most (`cfg.rounds(shape)`). Block row `b` walks tile
/// rows `b`, `b + gridDim.y`, ... below the last one, as the kernel's loop does.
pub fn round_spread(shape: Shape, cfg: &LaunchConfig) -> (u64, u64) {
    let tile_rows = shape.rows.div_ceil(cfg.block.y as u64);
    let rounds = |b: u64| (b..tile_rows).step_by(cfg.grid.y as usize).count() as u64;
    let most = cfg.rounds(shape);
    let fewest = (0..cfg.grid.y as u64).map(rounds).min().unwrap_or(0);
    let at_most = (0..cfg.grid.y as u64).filter(|&b| rounds(b) == most).count() as u64;
    (fewest, at_most)
}

/// The edge-shape table's figures: its warp requests, and its shapes as
/// the source's and the rest.
fn guard_bank_values() -> Vec<(&'static str, String)> {
    let shapes = guard_bank_shapes();
    let beyond: Vec<String> =
        shapes.iter().filter(|s| !SOURCE_CASES.iter().any(|c| c.shape == **s)).map(|s| s.to_string()).collect();
    vec![
        ("k2.banks.guarded_requests", guards_leave_banks_alone(&shapes).0.to_string()),
        ("k2.banks.source_shapes", (shapes.len() - beyond.len()).to_string()),
        ("k2.banks.extra_shapes", beyond.join(", ")),
    ]
}

/// The shape `KTRAV_GPU_LARGE=1` adds to the larger-shape checks.
fn large_shape() -> Shape {
    let plain = crate::gpu::large_shapes(false);
    crate::gpu::large_shapes(true).into_iter().find(|s| !plain.contains(s)).expect("a large shape")
}

/// v2's and v3's bytes in flight per multiprocessor, from the in-flight
/// table, and their ratio.
fn per_sm_values() -> Vec<(&'static str, String)> {
    let flight = crate::in_flight(crate::PTXAS_REPORT, &ktrav::occupancy::SM_90).expect("the committed report");
    let per_sm = |kernel: &str| flight.iter().find(|r| r.kernel == kernel).expect("a numbered version").bytes_per_sm();
    let (v2, v3) = (per_sm("transpose_v2_64x64_float2"), per_sm("transpose_v3_64x64_float4"));
    vec![
        ("k2.v2.bytes_per_sm", v2.to_string()),
        ("k2.v3.bytes_per_sm", v3.to_string()),
        ("k2.v3_over_v2.per_sm", format!("{}", v3 as f64 / v2 as f64)),
    ]
}

/// v1's loads and bytes in flight in its sm_90 machine code, from the
/// committed SASS listing.
fn sm90_v1_values() -> Vec<(&'static str, String)> {
    let loads = crate::sass_loads_in_flight(crate::SASS_V1, ktrav::occupancy::SM_90.arch)
        .expect("the committed SASS listing has sm_90");
    vec![
        ("k2.v1.sm90_loads_in_flight", loads.to_string()),
        ("k2.v1.sm90_bytes_in_flight", (loads as u64 * crate::WORD_BYTES).to_string()),
    ]
}

/// The background's 40x40 launch with one phase unguarded.
fn unguarded_values() -> Vec<(&'static str, String)> {
    let (reads, writes) = unguarded_past_end(UNGUARDED_SHAPE, TILE);
    assert_eq!(reads, writes, "the square shape reads and writes past the end alike");
    vec![
        ("k2.unguarded.past_end", reads.to_string()),
        ("k2.unguarded.wrapped_writes", unguarded_wrapped_writes(UNGUARDED_SHAPE, TILE).to_string()),
        ("k2.unguarded.grid", validate(UNGUARDED_SHAPE, TILE).expect("valid").grid.to_string()),
    ]
}

/// What `--tile 33` is refused with (after `error: `), as "Try it" shows.
pub fn tile33_error() -> String {
    crate::validate(Shape::new(1, 1), 33).expect_err("a 33-wide tile is refused").to_string()
}

pub fn values() -> Vec<(&'static str, String)> {
    let square = TileLayout::Square.shared_bytes(TILE);
    let padded = TileLayout::Padded.shared_bytes(TILE);
    // The suite's tallest matrix: one column, more rows of tiles than
    // gridDim.y allows.
    let tall = crate::gpu::large_shapes(false)
        .into_iter()
        .filter(|s| s.cols == 1)
        .max_by_key(|s| s.rows)
        .expect("a one-column shape");
    let tall_launch =
        crate::transpose_launch(TileLayout::Padded, tall, TILE).expect("the suite's tall shape launches").cfg;
    let (fewest_rounds, longest_block_rows) = round_spread(tall, &tall_launch);
    let mut v = vec![
        ("k2.gpu.large", large_shape().to_string()),
        ("k2.tall.rows", power_of_two(tall.rows)),
        ("k2.tall.tile_rows", power_of_two(tall.rows.div_ceil(TILE as u64))),
        ("k2.tall.grid_y", tall_launch.grid.y.to_string()),
        ("k2.tall.rounds", tall_launch.rounds(tall).to_string()),
        ("k2.tall.fewest_rounds", fewest_rounds.to_string()),
        ("k2.tall.longest_block_rows", longest_block_rows.to_string()),
        ("k2.tile.square_bytes", square.to_string()),
        ("k2.tile.padded_bytes", padded.to_string()),
        ("k2.tile.padding_bytes", (padded - square).to_string()),
    ];
    let per = bytes_per_thread();
    let names = ["k2.teaching", "k2.v1", "k2.v2", "k2.v3"];
    for ((_, bytes, loads), name) in per.iter().zip(names) {
        let (b, l): (&'static str, &'static str) = match name {
            "k2.teaching" => ("k2.teaching.bytes_per_thread", "k2.teaching.loads_per_thread"),
            "k2.v1" => ("k2.v1.bytes_per_thread", "k2.v1.loads_per_thread"),
            "k2.v2" => ("k2.v2.bytes_per_thread", "k2.v2.loads_per_thread"),
            _ => ("k2.v3.bytes_per_thread", "k2.v3.loads_per_thread"),
        };
        v.push((b, bytes.to_string()));
        v.push((l, loads.to_string()));
    }
    v.push(("k2.v1_over_teaching", (per[1].1 / per[0].1).to_string()));
    v.push(("k2.v2_over_v1", (per[2].1 / per[1].1).to_string()));
    v.extend(per_sm_values());
    v.extend(sm90_v1_values());
    v.push(("k2.try.tile33_error", tile33_error()));
    let quiet = ProgressBar::hidden();
    let full = Shape::new(TILE as u64, TILE as u64);
    let figures = |shape, width, layout| bank_figures(shape, width, layout, &quiet).expect("a valid shape");
    let [sq_store, sq_load] = figures(full, TILE, TileLayout::Square);
    let [_, pad_load] = figures(full, TILE, TileLayout::Padded);
    v.push(("k2.banks.warps", sq_store.warps.to_string()));
    v.push(("k2.banks.row_banks", sq_store.banks.0.to_string()));
    v.push(("k2.banks.row_degree", sq_store.degree.1.to_string()));
    v.push(("k2.banks.square_column_degree", sq_load.degree.1.to_string()));
    v.push(("k2.banks.padded_column_banks", pad_load.banks.0.to_string()));
    v.push(("k2.banks.padded_column_degree", pad_load.degree.1.to_string()));
    let (lanes, square, padded) = column_read(SOURCE_CASES[1].shape);
    v.push(("k2.banks.ragged_lanes", lanes.to_string()));
    v.push(("k2.banks.ragged_square_degree", square.to_string()));
    v.push(("k2.banks.ragged_padded_degree", padded.to_string()));
    v.extend(guard_bank_values());
    let (shape, width) = NARROW;
    v.push(("k2.banks.narrow_square_degree", figures(shape, width, TileLayout::Square)[1].degree.1.to_string()));
    v.push(("k2.banks.narrow_padded_degree", figures(shape, width, TileLayout::Padded)[1].degree.1.to_string()));
    let [(store_conflicts, store_warps), (load_conflicts, load_warps)] = narrow_padded_conflicts();
    v.push(("k2.banks.narrow_padded_store_conflicts", store_conflicts.to_string()));
    v.push(("k2.banks.narrow_padded_store_warps", store_warps.to_string()));
    v.push(("k2.banks.narrow_padded_load_conflicts", load_conflicts.to_string()));
    v.push(("k2.banks.narrow_padded_load_warps", load_warps.to_string()));
    for (c, name) in SOURCE_CASES.iter().zip(["k2.case1.grid", "k2.case2.grid", "k2.case3.grid", "k2.case4.grid"]) {
        v.push((name, validate(c.shape, c.tile).expect("the source's shapes are valid").grid.to_string()));
    }
    let cfg = validate(SOURCE_CASES[1].shape, SOURCE_CASES[1].tile).expect("valid");
    v.push(("k2.case2.grid_x", cfg.grid.x.to_string()));
    v.push(("k2.case2.grid_y", cfg.grid.y.to_string()));
    v.extend(unguarded_values());
    let (schedules, most, fewest, at_fewest, passing) = missing_barrier();
    v.push(("k2.missing_barrier.schedules", schedules.to_string()));
    v.push(("k2.missing_barrier.most", most.to_string()));
    v.push(("k2.missing_barrier.fewest", fewest.to_string()));
    v.push(("k2.missing_barrier.at_fewest", at_fewest));
    v.push(("k2.missing_barrier.passing", passing));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_version_moves_the_bytes_its_tile_and_block_give() {
        let per = bytes_per_thread();
        assert_eq!(per.iter().map(|p| (p.1, p.2)).collect::<Vec<_>>(), [(4, 1), (16, 4), (64, 8), (64, 4)]);
    }

    #[test]
    fn the_bank_and_guard_figures_are_the_pages() {
        assert_eq!(unguarded_past_end(UNGUARDED_SHAPE, TILE), (1560, 1560));
        // 39 output rows of 24 columns past the last: 40 + 24 < 64, so each
        // lands on the row below; the 40th row's land past the end.
        assert_eq!(unguarded_wrapped_writes(UNGUARDED_SHAPE, TILE), 39 * 24);
        assert_eq!(unguarded_wrapped_writes(Shape::new(64, 64), TILE), 0);
        assert_eq!(column_read(SOURCE_CASES[1].shape), (7, 7, 1));
        assert_eq!(guards_leave_banks_alone(&guard_bank_shapes()).0, 680);
        assert_eq!(narrow_padded_conflicts(), [(64, 85), (64, 99)]);
    }

    #[test]
    fn block_rows_walk_as_many_rounds_as_their_tile_rows_need() {
        // 10 rows of tiles over 4 block rows: block rows 0 and 1 take tile
        // rows 0, 4, 8 and 1, 5, 9; block rows 2 and 3 take two each.
        let cfg = LaunchConfig { grid: Dim2::new(1, 4), block: Dim2::new(1, 1) };
        assert_eq!(round_spread(Shape::new(10, 1), &cfg), (2, 2));
        assert_eq!(round_spread(Shape::new(8, 1), &cfg), (2, 4));
        // The suite's tall matrix: 2^21 tile rows over 65535 block rows.
        let get = |n: &str| values().into_iter().find(|(k, _)| *k == n).unwrap().1;
        let spread = (get("k2.tall.fewest_rounds"), get("k2.tall.rounds"), get("k2.tall.longest_block_rows"));
        assert_eq!(spread, ("32".into(), "33".into(), "32".into()));
    }

    #[test]
    fn a_changed_tile_changes_the_bytes() {
        // v1's plan with a 64-wide tile instead of its 32 would give each
        // of its 256 threads four times the bytes.
        let plan = ktrav::ladder::tiles_strided(PROBE, 64, Dim2::new(32, 8)).unwrap();
        assert_eq!(PROBE.elements() * 4 / threads(&plan), 4 * bytes_per_thread()[1].1);
    }
}
