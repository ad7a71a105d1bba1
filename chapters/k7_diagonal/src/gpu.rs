//! K.7 on a real GPU: the lattice-path table filled by `lattice_wavefront`
//! (one launch per diagonal) and by `lattice_tiled` (one launch per diagonal
//! of tiles), checked cell by cell against the scalar DP, exact integers
//! modulo 2^61 - 1, on the source's five tables and on large ones. The
//! single launch, wrong on purpose, is run too and its wrong cells counted,
//! as a demonstration rather than a verdict. Every launch comes from the
//! same launch plan the simulator runs.

use crate::{
    diagonal_count, scalar_dp, simulate_tiled, simulate_wavefront, single_launch_plan, tiled_plan, wavefront_plan,
    Interleaving, Launch, SOURCE_BLOCK_X, SOURCE_DP_CASES,
};
use anyhow::{Context, Result};
use ktrav::chapter::NotOnTheLadder;
use ktrav::compare::{compare, Agreement};
use ktrav::{BlockOrder, Dim2, Shape};
use ktrav_gpu::graph::Graph;
use ktrav_gpu::ladder::{Expected, Io, Ladder, Row, Yardstick};
use ktrav_gpu::section::{small_shapes, Role};
use ktrav_gpu::{Args, DeviceBuffer, Gpu, GpuSection, Kernel, PushKernelArg};
use ktrav_term::report;
use std::cell::RefCell;
use std::time::Instant;

const FILE: &str = "k7_diagonal";

/// The source's tile side for its five tables, as in the tiled report.
pub const SOURCE_TILE: u32 = 4;

/// Tables beyond the source: (shape, block_x of each per-diagonal launch,
/// tile side of the tiled version).
pub const LARGE_TABLES: [(Shape, u32, u32); 2] = [(Shape::new(4096, 4096), 256, 32), (Shape::new(3001, 4999), 256, 16)];

/// The single launch is shown on the chapter's 16x16 table and on the first
/// large one: (shape, block).
pub const SINGLE_LAUNCH_TABLES: [(Shape, Dim2); 2] =
    [(Shape::new(16, 16), Dim2::new(4, 4)), (Shape::new(4096, 4096), Dim2::new(16, 16))];

/// How many times the single launch is repeated on each table: the race
/// need not come out the same way twice.
pub const SINGLE_LAUNCH_RUNS: usize = 5;

/// One filled table and what it took.
pub struct Fill {
    pub table: Vec<u64>,
    pub launches: u64,
    /// The time between each launch's two events, summed over the
    /// launches. The start event is recorded before the host enqueues the
    /// launch, so each span holds that enqueue as well as the kernel.
    pub event_ms: f32,
    /// Host wall-clock time of the whole loop of launches, including the
    /// runner's synchronisation after each launch.
    pub wall_ms: f64,
}

/// Runs a plan of `kernel` (`lattice_wavefront` or `lattice_tiled`, which
/// take the same arguments) on a poisoned `shape` table, so a cell no launch
/// writes, and any cell computed from one, is caught. Each launch is
/// waited for before the next, as the chapter's host loop does.
fn run_plan_on_gpu(gpu: &Gpu, kernel: &str, shape: Shape, plan: &[Launch]) -> Result<Fill> {
    let f = gpu.function(FILE, kernel)?;
    let grid = gpu.poisoned::<u64>(shape.elements() as usize)?;
    let (rows, cols) = (shape.rows as i64, shape.cols as i64);
    let mut event_ms = 0.0f32;
    let table = gpu.address(&grid);
    let start = Instant::now();
    for launch in plan {
        event_ms += gpu.timed(|| enqueue_diagonal(gpu, &f, kernel, table, (rows, cols), launch))?;
    }
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(Fill { table: gpu.download(&grid)?, launches: plan.len() as u64, event_ms, wall_ms })
}

/// `lattice_wavefront`'s plan on the GPU: `rows + cols - 1` launches.
pub fn wavefront_on_gpu(gpu: &Gpu, shape: Shape, block_x: u32) -> Result<Fill> {
    run_plan_on_gpu(gpu, "lattice_wavefront", shape, &wavefront_plan(shape, block_x)?)
}

/// `lattice_tiled`'s plan on the GPU: one launch per diagonal of tiles.
pub fn tiled_on_gpu(gpu: &Gpu, shape: Shape, tile: u32) -> Result<Fill> {
    run_plan_on_gpu(gpu, "lattice_tiled", shape, &tiled_plan(shape, tile)?)
}

/// One launch of `lattice_single_launch` over the whole table, which starts
/// zeroed as in the chapter (`cudaMemset(grid, 0, ...)`), so a read that
/// comes too early sees 0. Returns the table and the kernel's time.
pub fn single_launch_on_gpu(gpu: &Gpu, shape: Shape, block: Dim2) -> Result<(Vec<u64>, f32)> {
    let f = gpu.function(FILE, "lattice_single_launch")?;
    let launch = single_launch_plan(shape, block)?;
    let mut grid = gpu.zeros::<u64>(shape.elements() as usize)?;
    let (rows, cols) = (shape.rows as i64, shape.cols as i64);
    // lattice_single_launch(unsigned long long* grid, long long rows, long long cols)
    let mut args = gpu.args(&f);
    args.arg(&mut grid).arg(&rows).arg(&cols);
    let ms = gpu.launch(args, &launch.cfg, 0).context("lattice_single_launch")?;
    Ok((gpu.download(&grid)?, ms))
}

/// One fill's verdict: the table agrees cell by cell, the launch count is
/// the one the chapter says, and (for the source's tables) the simulator
/// whose table the GPU is compared with itself equals the scalar DP.
fn verdict(
    sec: &mut GpuSection,
    label: &str,
    agreement: &Agreement,
    fill: &Fill,
    expected_launches: u64,
    sim_is_dp: bool,
) {
    let launches_ok = fill.launches == expected_launches;
    let mut detail = format!("{} launches", fill.launches);
    if !launches_ok {
        detail += &format!(" (expected {expected_launches})");
    }
    detail += &format!(", {}", agreement.describe());
    if !sim_is_dp {
        detail += ", but the simulator's table differs from the scalar DP";
    }
    sec.verdict(label, &detail, agreement.ok() && launches_ok && sim_is_dp, Some(fill.event_ms));
}

/// The chapter's GPU entry points, held by its [`ktrav::Chapter`]: the
/// whole section or the small-shape mode (`ktrav_gpu::section`), the
/// section at a reader's shape, and where the ladder times the exercises.
pub const ENTRY: ktrav_gpu::GpuEntry = ktrav_gpu::GpuEntry { checks, small, at_shape, ladder_shape };

/// Where the ladder times an exercise's solution (see
/// [`ktrav::GpuHooks::ladder_shape`]).
fn ladder_shape(ex: &ktrav::Exercise) -> Result<Shape, NotOnTheLadder> {
    // The per-diagonal wavefront, the table's yardstick, with the
    // exercise's block of threads.
    let (shape, block_x, _) = LARGE_TABLES[0];
    match ex.launch {
        ktrav::lab::Launch::PerDiagonal { block } if block == block_x => Ok(shape),
        other => Err(NotOnTheLadder::OtherLaunch {
            section: crate::CHAPTER.section,
            ladder: format!("{block_x}-thread blocks"),
            exercise: format!("{other:?}"),
        }),
    }
}

/// The small-shape mode: the per-diagonal and tiled fills against the
/// simulator and the single launch (wrong on purpose, its wrong cells
/// shown) on [`SMALL_PER_DIAGONAL`], and every version twice on one work
/// buffer against the scalar DP on each small shape.
pub fn small(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    for shape in SMALL_PER_DIAGONAL {
        let (sim, _) = simulate_wavefront(shape, SOURCE_BLOCK_X, &BlockOrder::Forward)?;
        let fill = wavefront_on_gpu(gpu, shape, SOURCE_BLOCK_X)?;
        let first = wavefront_plan(shape, SOURCE_BLOCK_X)?[0].cfg;
        sec.run("lattice_wavefront", Role::Teaching, shape, &first, &compare(&fill.table, &sim));

        let (sim, _) = simulate_tiled(shape, SOURCE_TILE, &BlockOrder::Forward, Interleaving::LockStep)?;
        let fill = tiled_on_gpu(gpu, shape, SOURCE_TILE)?;
        let first = tiled_plan(shape, SOURCE_TILE)?[0].cfg;
        sec.run("lattice_tiled", Role::Teaching, shape, &first, &compare(&fill.table, &sim));

        let block = SINGLE_LAUNCH_TABLES[0].1;
        let (table, _) = single_launch_on_gpu(gpu, shape, block)?;
        let a = compare(&table, &scalar_dp(shape));
        let cfg = single_launch_plan(shape, block)?.cfg;
        sec.run_shown("lattice_single_launch", shape, &cfg, (a.unwritten + a.mismatched) as u64, shape.elements());
    }
    ladder(&dp(), small_shapes()).validate(gpu, sec)
}

/// The small shapes of the per-diagonal fills and the single launch: 1x1,
/// a line and a column, one ragged against the 4-cell tiles and blocks and
/// one aligned, kept to 231 diagonals in all, since a per-diagonal fill
/// makes one launch (and one wait) per diagonal and a sanitizer slows each.
pub const SMALL_PER_DIAGONAL: [Shape; 5] =
    [Shape::new(1, 1), Shape::new(1, 64), Shape::new(64, 1), Shape::new(21, 19), Shape::new(32, 32)];

/// The section at a reader's shape (`--gpu`): the per-diagonal and tiled
/// fills and every version (twice on one work buffer) against the scalar
/// DP, the single launch's wrong cells shown, then every fill timed against
/// the per-diagonal launches issued back to back.
/// `Err` when its buffers do not fit in the free device memory.
pub fn at_shape(shape: Shape) -> Result<ktrav::SectionOutcome, ktrav_gpu::section::TooLarge> {
    let expected = dp();
    let ladder = ladder(&expected, vec![shape]);
    let (_, block_x, tile) = LARGE_TABLES[0];
    ktrav_gpu::section::section_at(
        &crate::CHAPTER,
        shape,
        |sms| ladder.device_bytes(shape, sms),
        |gpu, sec| {
            let reference = scalar_dp(shape);
            let fill = wavefront_on_gpu(gpu, shape, block_x)?;
            let label = format!("  {shape} lattice_wavefront, block_dim_x={block_x}");
            verdict(sec, &label, &compare(&fill.table, &reference), &fill, diagonal_count(shape), true);
            let tiles = Shape::new(shape.rows.div_ceil(tile as u64), shape.cols.div_ceil(tile as u64));
            let fill = tiled_on_gpu(gpu, shape, tile)?;
            let label = format!("  {shape} lattice_tiled, {tile}x{tile} tiles");
            verdict(sec, &label, &compare(&fill.table, &reference), &fill, diagonal_count(tiles), true);
            let block = SINGLE_LAUNCH_TABLES[1].1;
            let (table, _) = single_launch_on_gpu(gpu, shape, block)?;
            let a = compare(&table, &reference);
            drop(reference);
            sec.line(format!(
            "  {shape} lattice_single_launch (wrong on purpose), {block} blocks: {} of {} cells wrong (shown, not judged)",
            a.unwritten + a.mismatched,
            shape.elements()
        ));
            let (baseline, tiled) = back_to_back_rows(shape, block_x, tile)?;
            ladder.at_shape(gpu, sec, shape, Yardstick::Named(baseline), vec![tiled])
        },
    )
}

/// The scalar DP every version is checked against.
fn dp() -> impl Fn(Shape) -> Expected<u64> {
    |shape: Shape| -> Expected<u64> {
        let reference = scalar_dp(shape);
        Box::new(move |i| reference[i])
    }
}

/// The chapter's ladder on `shapes`, each version run twice on one work buffer.
fn ladder(expected: &dyn Fn(Shape) -> Expected<u64>, shapes: Vec<Shape>) -> Ladder<'_, u64> {
    Ladder {
        chapter: &crate::CHAPTER,
        push: version_args,
        inputs: 0,
        expected,
        against: "each version on every table, twice on one work buffer, against the scalar DP (table poisoned first)",
        shapes,
        runs: &["", ", again"],
        repeats: 5,
        check_timed: Some("the scalar DP"),
    }
}

/// The per-diagonal and the per-tile-diagonal plans of `shape`, each queued
/// back to back as a row of a timing table.
fn back_to_back_rows<'f>(shape: Shape, block_x: u32, tile: u32) -> Result<(Row<'f, u64>, Row<'f, u64>)> {
    let (per_diagonal, per_tile_diagonal) = (wavefront_plan(shape, block_x)?, tiled_plan(shape, tile)?);
    let label = format!("lattice_wavefront, {} launches back to back", per_diagonal.len());
    let baseline = Row::new(label, move |gpu, io: &mut Io<u64>| {
        back_to_back(gpu, "lattice_wavefront", &per_diagonal, &mut io.out, shape)
    });
    let label = format!("lattice_tiled ({tile}x{tile} tiles), {} launches back to back", per_tile_diagonal.len());
    let tiled = Row::new(label, move |gpu, io: &mut Io<u64>| {
        back_to_back(gpu, "lattice_tiled", &per_tile_diagonal, &mut io.out, shape)
    });
    Ok((baseline, tiled))
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    sec.line(format!(
        "the source's five tables, each against the simulator's table and launch count \
         (block_dim_x={SOURCE_BLOCK_X}, {SOURCE_TILE}x{SOURCE_TILE} tiles; the simulator's table equals the scalar DP):"
    ));
    for shape in SOURCE_DP_CASES {
        let reference = scalar_dp(shape);
        let (sim, sim_launches) = simulate_wavefront(shape, SOURCE_BLOCK_X, &BlockOrder::Forward)?;
        let fill = wavefront_on_gpu(gpu, shape, SOURCE_BLOCK_X)?;
        let label = format!("{shape} lattice_wavefront");
        verdict(sec, &label, &compare(&fill.table, &sim), &fill, sim_launches, sim == reference);

        let (sim, sim_launches) = simulate_tiled(shape, SOURCE_TILE, &BlockOrder::Forward, Interleaving::LockStep)?;
        let fill = tiled_on_gpu(gpu, shape, SOURCE_TILE)?;
        let label = format!("{shape} lattice_tiled");
        verdict(sec, &label, &compare(&fill.table, &sim), &fill, sim_launches, sim == reference);
    }

    sec.line(format!("large tables, against the scalar DP (mod 2^{}-1):", crate::MODULUS_BITS));
    for (shape, block_x, tile) in LARGE_TABLES {
        let reference = scalar_dp(shape);
        let fill = wavefront_on_gpu(gpu, shape, block_x)?;
        let label = format!("{shape} lattice_wavefront, block_dim_x={block_x}");
        verdict(sec, &label, &compare(&fill.table, &reference), &fill, diagonal_count(shape), true);

        let tiles = Shape::new(shape.rows.div_ceil(tile as u64), shape.cols.div_ceil(tile as u64));
        let fill = tiled_on_gpu(gpu, shape, tile)?;
        let label = format!("{shape} lattice_tiled, {tile}x{tile} tiles");
        verdict(sec, &label, &compare(&fill.table, &reference), &fill, diagonal_count(tiles), true);
    }

    single_launch(gpu, sec)?;
    timing(gpu, sec, LARGE_TABLES[0])?;
    how_fast(gpu, sec)
}

/// The tables every single-launch version is checked on: 1x1, one row, one
/// column, ragged, the chapter's two large tables, and a tall and a wide
/// table with more bands (or far more columns) than the grid has blocks.
/// Tables past 2^31 cells are not checked: 17 GB on the device and as much
/// again for the host's reference, for kernels whose indices are the same
/// 64-bit ones at every size.
pub const LADDER_TABLES: [Shape; 9] = [
    Shape::new(1, 1),
    Shape::new(1, 1000),
    Shape::new(1000, 1),
    Shape::new(37, 61),
    Shape::new(1000, 1001),
    Shape::new(4096, 4096),
    Shape::new(3001, 4999),
    Shape::new(100_003, 7),
    Shape::new(7, 100_003),
];

// ANCHOR: ladder
/// How every version takes its arguments:
/// `lattice_vN(unsigned long long* grid, long long rows, long long cols, unsigned long long* work)`.
fn version_args<'a>(args: &mut Args<'a>, io: &'a mut Io<u64>) {
    args.arg(&mut io.out).arg(&io.rows_ll).arg(&io.cols_ll).arg(&mut io.work);
}

/// Queues a whole per-diagonal (or per-tile-diagonal) plan without waiting
/// between launches, and times it from the first launch to the last
/// kernel's end: the fair baseline, with no host synchronisation inside.
/// The table goes to every launch as its raw address, as the lab's check
/// passes it: a tracked buffer would add event calls to each of the
/// thousands of launches, and the host's launch rate is what this times.
fn back_to_back(gpu: &Gpu, kernel: &str, plan: &[Launch], grid: &mut DeviceBuffer<u64>, shape: Shape) -> Result<f32> {
    let f = gpu.function(FILE, kernel)?;
    let (rows, cols) = (shape.rows as i64, shape.cols as i64);
    let table = gpu.address(grid);
    gpu.timed(|| {
        for launch in plan {
            enqueue_diagonal(gpu, &f, kernel, table, (rows, cols), launch)?;
        }
        Ok(())
    })
}

/// Queues one launch of a per-diagonal plan, without waiting for it.
fn enqueue_diagonal(
    gpu: &Gpu,
    f: &Kernel,
    kernel: &str,
    grid: u64,
    (rows, cols): (i64, i64),
    launch: &Launch,
) -> Result<()> {
    let d = launch.diagonal as i64;
    // lattice_wavefront / lattice_tiled(unsigned long long* grid, long long rows, long long cols, long long d)
    let mut args = gpu.args(f);
    args.arg(&grid).arg(&rows).arg(&cols).arg(&d);
    gpu.enqueue(args, &launch.cfg, 0).with_context(|| format!("{kernel} for diagonal {d}"))
}

/// The label words of the two baselines the single-launch versions are
/// timed against, both the per-diagonal plan of [`PER_DIAGONAL_KERNEL`]:
/// its launches queued back to back on the runner's stream (the host
/// issues every one), and the same launches captured once into a CUDA graph
/// and replayed (the device runs them with no host call in between: the
/// cheapest the card allows, so the table's yardstick and its headline
/// ratio). The rendered pages find the baselines by these words.
pub const STREAM_BASELINE: &str = "launches back to back";
pub const GRAPH_BASELINE: &str = "launches replayed from one CUDA graph";
/// The kernel of the per-diagonal plan both baselines run.
pub const PER_DIAGONAL_KERNEL: &str = "lattice_wavefront";
/// The versions that answer the table by its closed form instead of
/// running the recurrence: beside the wavefront, not part of it.
pub const CLOSED_FORM_VERSIONS: [&str; 1] = ["lattice_v3_binomial"];

/// Captures a whole per-diagonal plan into a graph on its first call, on
/// the buffer `grid` of that call, and replays it on every call: the time
/// of one replay. The graph lives as long as `graph` does.
fn graph_replay(
    gpu: &Gpu,
    graph: &mut Option<Graph>,
    kernel: &str,
    plan: &[Launch],
    grid: &DeviceBuffer<u64>,
    shape: Shape,
) -> Result<f32> {
    if graph.is_none() {
        let f = gpu.function(FILE, kernel)?;
        let ptr = gpu.address(grid);
        let (rows, cols) = (shape.rows as i64, shape.cols as i64);
        *graph = Some(Graph::capture(gpu, |capture| {
            for launch in plan {
                let d = launch.diagonal as i64;
                // lattice_wavefront(unsigned long long* grid, long long rows, long long cols, long long d)
                let mut args = capture.args(&f);
                args.arg(&ptr).arg(&rows).arg(&cols).arg(&d);
                capture.enqueue(args, &launch.cfg, 0).with_context(|| format!("{kernel} for diagonal {d}"))?;
            }
            Ok(())
        })?);
    }
    graph.as_ref().expect("captured above").replay_ms(gpu)
}

/// "How fast can it go": every single-launch version on every ladder table
/// against the scalar DP, the table poisoned first and each version run
/// twice on the same work buffer (which each launch must leave ready for
/// the next); then all of them timed as speed-ups over the per-diagonal
/// launches replayed from a graph, with the same launches issued back to
/// back on the stream as a row, every timed table checked too; and the
/// factor between the two baselines, by which every speed-up over the
/// stream is larger.
fn how_fast(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    let dp = |shape: Shape| -> Expected<u64> {
        let reference = scalar_dp(shape);
        Box::new(move |i| reference[i])
    };
    let ladder = Ladder {
        chapter: &crate::CHAPTER,
        push: version_args,
        inputs: 0,
        expected: &dp,
        against: "each version on every table, twice on one work buffer, against the scalar DP (table poisoned first)",
        shapes: LADDER_TABLES.to_vec(),
        runs: &["", ", again"],
        repeats: 5,
        check_timed: Some("the scalar DP"),
    };
    ladder.validate(gpu, sec)?;
    let (shape, block_x, tile) = LARGE_TABLES[0];
    let (per_diagonal, per_tile_diagonal) = (wavefront_plan(shape, block_x)?, tiled_plan(shape, tile)?);
    let (graph_ms, stream_ms) = (RefCell::new(Vec::new()), RefCell::new(Vec::new()));
    let mut graph = None;
    let label = format!("{PER_DIAGONAL_KERNEL}, {} {GRAPH_BASELINE}", per_diagonal.len());
    let replayed = Row::new(label, |gpu, io: &mut Io<u64>| {
        let ms = graph_replay(gpu, &mut graph, PER_DIAGONAL_KERNEL, &per_diagonal, &io.out, shape)?;
        graph_ms.borrow_mut().push(ms);
        Ok(ms)
    });
    let label = format!("{PER_DIAGONAL_KERNEL}, {} {STREAM_BASELINE}", per_diagonal.len());
    let streamed = Row::new(label, |gpu, io: &mut Io<u64>| {
        let ms = back_to_back(gpu, PER_DIAGONAL_KERNEL, &per_diagonal, &mut io.out, shape)?;
        stream_ms.borrow_mut().push(ms);
        Ok(ms)
    });
    let label = format!("lattice_tiled ({tile}x{tile} tiles), {} {STREAM_BASELINE}", per_tile_diagonal.len());
    let tiled = Row::new(label, |gpu, io: &mut Io<u64>| {
        back_to_back(gpu, "lattice_tiled", &per_tile_diagonal, &mut io.out, shape)
    });
    let title = format!("the {shape} table, how fast can it go");
    ladder.time(gpu, sec, shape, &title, Yardstick::Named(replayed), vec![streamed, tiled])?;
    if let (Some(graph), Some(stream)) = (report::median(graph_ms.take()), report::median(stream_ms.take())) {
        sec.line(format!(
            "  the graph replays the {} launches in {graph:.3} ms, the stream runs them in {stream:.3} ms: \
             against the stream, every speed-up above is {:.2} times larger",
            per_diagonal.len(),
            stream / graph
        ));
    }
    Ok(())
}
// ANCHOR_END: ladder

/// The single launch, wrong on purpose: its wrong cells are counted and
/// reported, never judged, since CUDA promises no order either way.
fn single_launch(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    sec.line(format!(
        "one launch for the whole table (wrong on purpose), {SINGLE_LAUNCH_RUNS} runs each, wrong cells against the scalar DP:"
    ));
    for (shape, block) in SINGLE_LAUNCH_TABLES {
        let reference = scalar_dp(shape);
        let mut wrong = Vec::with_capacity(SINGLE_LAUNCH_RUNS);
        for _ in 0..SINGLE_LAUNCH_RUNS {
            let (table, _) = single_launch_on_gpu(gpu, shape, block)?;
            let a = compare(&table, &reference);
            wrong.push(a.unwritten + a.mismatched);
        }
        sec.line(format!(
            "  {shape}, {block} blocks: {} of {} cells wrong",
            report::join(wrong, ", "),
            shape.elements()
        ));
    }
    sec.line("  (a demonstration, not a verdict: nothing orders a cell after its neighbours, so a GPU");
    sec.line("  may or may not show the race on a given run; 0 on a run proves nothing)");
    Ok(())
}

/// One timing line of a fill: `name`'s launches, the time between each
/// launch's events summed over them, and the host's wall time.
pub fn fill_line(name: &str, launches: u64, event_ms: f64, wall_ms: f64) -> String {
    format!(
        "  {name}: {launches} launches, {event_ms:.1} ms of event time summed over them (host enqueue included), \
         {wall_ms:.1} ms of wall time"
    )
}

/// The per-diagonal and tiled fills of one table side by side, medians of a
/// few runs, beside the host's scalar DP. The times are printed, never
/// asserted; the timed tables are still checked, in one verdict.
fn timing(gpu: &Gpu, sec: &mut GpuSection, (shape, block_x, tile): (Shape, u32, u32)) -> Result<()> {
    const REPEATS: usize = 3;
    sec.line(format!("times on the {shape} table, median of {REPEATS} fills (timings vary; never asserted):"));
    let start = Instant::now();
    let reference = scalar_dp(shape);
    let host_ms = start.elapsed().as_secs_f64() * 1e3;
    sec.line(format!("  scalar DP on the host, one core: {host_ms:.1} ms"));
    let mut bad_fills = 0;
    for tiled in [false, true] {
        let (mut events, mut wall, mut launches) = (Vec::new(), Vec::new(), 0);
        for _ in 0..REPEATS {
            let fill = if tiled { tiled_on_gpu(gpu, shape, tile)? } else { wavefront_on_gpu(gpu, shape, block_x)? };
            bad_fills += usize::from(!compare(&fill.table, &reference).ok());
            events.push(fill.event_ms as f64);
            wall.push(fill.wall_ms);
            launches = fill.launches;
        }
        let name = if tiled {
            format!("lattice_tiled ({tile}x{tile} tiles)")
        } else {
            format!("lattice_wavefront (block_dim_x={block_x})")
        };
        sec.line(fill_line(
            &name,
            launches,
            report::median(events).expect("at least one fill"),
            report::median(wall).expect("at least one fill"),
        ));
    }
    sec.line("  (wall time includes the runner's synchronisation after every launch)");
    let detail = format!("{bad_fills} of {} tables differ from the scalar DP", 2 * REPEATS);
    sec.verdict("the timed fills", &detail, bad_fills == 0, None);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{diagonal_len, tiled_steps};
    use ktrav::LaunchConfig;

    #[test]
    fn every_launch_is_within_cuda_limits() {
        let source = SOURCE_DP_CASES.iter().map(|&shape| (shape, SOURCE_BLOCK_X, SOURCE_TILE));
        for (shape, block_x, tile) in source.chain(LARGE_TABLES) {
            for launch in wavefront_plan(shape, block_x).unwrap() {
                let cfg = launch.cfg;
                assert!(cfg.threads_x() >= diagonal_len(launch.diagonal, shape) && cfg.grid.y == 1);
            }
            // A tile x tile block must hold at most 1024 threads.
            LaunchConfig::check_block(Dim2::new(tile, tile)).unwrap();
            assert!(tiled_plan(shape, tile).unwrap().iter().all(|l| l.cfg.grid.y == 1));
        }
        for (shape, block) in SINGLE_LAUNCH_TABLES {
            single_launch_plan(shape, block).unwrap();
        }
    }

    #[test]
    fn the_closed_form_and_the_baselines_name_the_chapters_own_kernels() {
        for kernel in CLOSED_FORM_VERSIONS {
            assert!(crate::CHAPTER.versions.iter().any(|v| v.kernel == kernel), "{kernel} is no version");
        }
        assert!(crate::CHAPTER.versions.len() > CLOSED_FORM_VERSIONS.len(), "no version keeps the recurrence");
        assert!(crate::CHAPTER.kernel_source.unwrap().contains(&format!("void {PER_DIAGONAL_KERNEL}(")));
    }

    #[test]
    fn the_small_per_diagonal_shapes_are_few_diagonals_with_the_edges() {
        let diagonals: u64 = SMALL_PER_DIAGONAL.iter().map(|&s| diagonal_count(s)).sum();
        assert_eq!(diagonals, 231);
        assert!(
            SMALL_PER_DIAGONAL.iter().any(|s| s.rows == 1 && s.cols > 1)
                && SMALL_PER_DIAGONAL.iter().any(|s| s.cols == 1 && s.rows > 1)
        );
        let ragged = |n: u64| !n.is_multiple_of(SOURCE_TILE as u64) && !n.is_multiple_of(SOURCE_BLOCK_X as u64);
        assert!(SMALL_PER_DIAGONAL.iter().any(|s| ragged(s.rows) && ragged(s.cols)));
        assert!(SMALL_PER_DIAGONAL.contains(&Shape::new(1, 1)));
    }

    #[test]
    fn the_large_tables_take_the_launch_counts_the_section_expects() {
        // 4096x4096: 8191 diagonals, and 128 + 128 - 1 diagonals of 32x32 tiles.
        let (shape, block_x, tile) = LARGE_TABLES[0];
        assert_eq!(wavefront_plan(shape, block_x).unwrap().len(), 8191);
        assert_eq!(tiled_plan(shape, tile).unwrap().len(), 255);
        assert_eq!(tiled_steps(tile), 63);
        // The simulator counts tiled launches the same way the GPU loop does.
        let small = Shape::new(37, 53);
        let (_, launches) = simulate_tiled(small, 8, &BlockOrder::Forward, Interleaving::OneAtATime).unwrap();
        assert_eq!(launches, tiled_plan(small, 8).unwrap().len() as u64);
        assert_eq!(launches, diagonal_count(Shape::new(37u64.div_ceil(8), 53u64.div_ceil(8))));
    }
}
