//! K.7 on a real GPU: the lattice-path table filled by `lattice_wavefront`
//! (one launch per diagonal) and by `lattice_tiled` (one launch per diagonal
//! of tiles), checked cell by cell against the scalar DP, exact integers
//! modulo 2^61 - 1, on the source's five tables and on large ones. The
//! single launch, wrong on purpose, is run too and its wrong cells counted,
//! as a demonstration rather than a verdict.

use crate::{
    diagonal_count, diagonal_len, scalar_dp, simulate_tiled, simulate_wavefront, wavefront_config, Interleaving,
    SOURCE_BLOCK_X, SOURCE_DP_CASES,
};
use cudarc::driver::CudaSlice;
use ktrav::gpu::{compare, Agreement, Gpu, GpuSection, PushKernelArg};
use ktrav::{BlockOrder, Dim2, LaunchConfig};
use std::time::Instant;

const FILE: &str = "k7_diagonal";

/// The source's tile side for its five tables, as in the tiled report.
pub const SOURCE_TILE: u32 = 4;

/// Tables beyond the source: (rows, cols, block_x of each per-diagonal
/// launch, tile side of the tiled version).
pub const LARGE_TABLES: [(u64, u64, u32, u32); 2] = [(4096, 4096, 256, 32), (3001, 4999, 256, 16)];

/// The single launch is shown on the chapter's 16x16 table and on the first
/// large one: (rows, cols, block).
pub const SINGLE_LAUNCH_TABLES: [(u64, u64, Dim2); 2] = [(16, 16, Dim2::new(4, 4)), (4096, 4096, Dim2::new(16, 16))];

/// How many times the single launch is repeated on each table: the race
/// need not come out the same way twice.
pub const SINGLE_LAUNCH_RUNS: usize = 5;

/// One filled table and what it took.
pub struct Fill {
    pub table: Vec<u64>,
    pub launches: u64,
    /// Device time between each launch's two events, summed over the
    /// launches: the kernels plus the gaps while the host enqueues them.
    pub kernel_ms: f32,
    /// Host wall-clock time of the whole loop of launches, including the
    /// runner's synchronisation after each launch.
    pub wall_ms: f64,
}

fn geometry(e: ktrav::GeometryError) -> String {
    e.to_string()
}

/// A table of `rows x cols` cells on the device, every word poisoned, so a
/// cell no launch writes, and any cell computed from one, is caught.
fn poisoned_table(gpu: &Gpu, rows: u64, cols: u64) -> Result<CudaSlice<u64>, String> {
    gpu.poisoned::<u64>((rows * cols) as usize)
}

/// The host's loop of `rows + cols - 1` launches of `lattice_wavefront`,
/// each with the simulator's launch for its diagonal.
pub fn wavefront_on_gpu(gpu: &Gpu, rows: u64, cols: u64, block_x: u32) -> Result<Fill, String> {
    let f = gpu.function(FILE, "lattice_wavefront")?;
    let mut grid = poisoned_table(gpu, rows, cols)?;
    let (r, c) = (rows as i64, cols as i64);
    let (mut launches, mut kernel_ms) = (0u64, 0.0f32);
    let start = Instant::now();
    for d in 0..diagonal_count(rows, cols) {
        let cfg = wavefront_config(d, rows, cols, block_x).map_err(geometry)?;
        let d = d as i64;
        // lattice_wavefront(unsigned long long* grid, long long rows, long long cols, long long d)
        let mut args = gpu.args(&f);
        args.arg(&mut grid).arg(&r).arg(&c).arg(&d);
        kernel_ms += gpu.launch(args, &cfg, 0)?;
        launches += 1;
    }
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(Fill { table: gpu.download(&grid)?, launches, kernel_ms, wall_ms })
}

/// The host's loop for `lattice_tiled`: one launch per diagonal of tiles,
/// one `tile x tile` block per tile on it (the simulator's launches).
pub fn tiled_on_gpu(gpu: &Gpu, rows: u64, cols: u64, tile: u32) -> Result<Fill, String> {
    let f = gpu.function(FILE, "lattice_tiled")?;
    let block = Dim2::new(tile, tile);
    let (tiles_down, tiles_across) = (rows.div_ceil(tile as u64), cols.div_ceil(tile as u64));
    let mut grid = poisoned_table(gpu, rows, cols)?;
    let (r, c) = (rows as i64, cols as i64);
    let (mut launches, mut kernel_ms) = (0u64, 0.0f32);
    let start = Instant::now();
    for tile_d in 0..diagonal_count(tiles_down, tiles_across) {
        let blocks = diagonal_len(tile_d, tiles_down, tiles_across);
        let cfg = LaunchConfig::covering(blocks * tile as u64, tile as u64, block).map_err(geometry)?; // grid = (blocks, 1)
        let tile_d = tile_d as i64;
        // lattice_tiled(unsigned long long* grid, long long rows, long long cols, long long tile_d)
        let mut args = gpu.args(&f);
        args.arg(&mut grid).arg(&r).arg(&c).arg(&tile_d);
        kernel_ms += gpu.launch(args, &cfg, 0)?;
        launches += 1;
    }
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(Fill { table: gpu.download(&grid)?, launches, kernel_ms, wall_ms })
}

/// One launch of `lattice_single_launch` over the whole table, which starts
/// zeroed as in the chapter (`cudaMemset(grid, 0, ...)`), so a read that
/// comes too early sees 0. Returns the table and the kernel's time.
pub fn single_launch_on_gpu(gpu: &Gpu, rows: u64, cols: u64, block: Dim2) -> Result<(Vec<u64>, f32), String> {
    let f = gpu.function(FILE, "lattice_single_launch")?;
    let cfg = LaunchConfig::for_matrix(rows, cols, block).map_err(geometry)?;
    let mut grid = gpu
        .stream
        .alloc_zeros::<u64>((rows * cols) as usize)
        .map_err(|e| format!("zeroed device allocation failed ({e})"))?;
    let (r, c) = (rows as i64, cols as i64);
    // lattice_single_launch(unsigned long long* grid, long long rows, long long cols)
    let mut args = gpu.args(&f);
    args.arg(&mut grid).arg(&r).arg(&c);
    let ms = gpu.launch(args, &cfg, 0)?;
    Ok((gpu.download(&grid)?, ms))
}

/// One fill's verdict: the table agrees cell by cell, the launch count is
/// the one the chapter says, and (for the source's tables) the simulator
/// whose table the GPU is compared with itself equals the scalar DP.
fn verdict(sec: &mut GpuSection, label: &str, agreement: &Agreement, fill: &Fill, expected_launches: u64, sim_is_dp: bool) {
    let launches_ok = fill.launches == expected_launches;
    let mut detail = format!("{} launches", fill.launches);
    if !launches_ok {
        detail += &format!(" (expected {expected_launches})");
    }
    detail += &format!(", {}", agreement.describe());
    if !sim_is_dp {
        detail += ", but the simulator's table differs from the scalar DP";
    }
    sec.verdict(label, &detail, agreement.ok() && launches_ok && sim_is_dp, Some(fill.kernel_ms));
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<(), String> {
    sec.line(format!(
        "the source's five tables, each against the simulator's table and launch count \
         (block_dim_x={SOURCE_BLOCK_X}, {SOURCE_TILE}x{SOURCE_TILE} tiles; the simulator's table equals the scalar DP):"
    ));
    for (rows, cols) in SOURCE_DP_CASES {
        let reference = scalar_dp(rows, cols);
        let (sim, sim_launches) =
            simulate_wavefront(rows, cols, SOURCE_BLOCK_X, &BlockOrder::Forward).map_err(geometry)?;
        let fill = wavefront_on_gpu(gpu, rows, cols, SOURCE_BLOCK_X)?;
        let label = format!("{rows}x{cols} lattice_wavefront");
        verdict(sec, &label, &compare(&fill.table, &sim), &fill, sim_launches, sim == reference);

        let (sim, sim_launches) =
            simulate_tiled(rows, cols, SOURCE_TILE, &BlockOrder::Forward, Interleaving::LockStep).map_err(geometry)?;
        let fill = tiled_on_gpu(gpu, rows, cols, SOURCE_TILE)?;
        let label = format!("{rows}x{cols} lattice_tiled");
        verdict(sec, &label, &compare(&fill.table, &sim), &fill, sim_launches, sim == reference);
    }

    sec.line("large tables, against the scalar DP (mod 2^61-1):");
    for (rows, cols, block_x, tile) in LARGE_TABLES {
        let reference = scalar_dp(rows, cols);
        let fill = wavefront_on_gpu(gpu, rows, cols, block_x)?;
        let label = format!("{rows}x{cols} lattice_wavefront, block_dim_x={block_x}");
        verdict(sec, &label, &compare(&fill.table, &reference), &fill, diagonal_count(rows, cols), true);

        let tiles = diagonal_count(rows.div_ceil(tile as u64), cols.div_ceil(tile as u64));
        let fill = tiled_on_gpu(gpu, rows, cols, tile)?;
        let label = format!("{rows}x{cols} lattice_tiled, {tile}x{tile} tiles");
        verdict(sec, &label, &compare(&fill.table, &reference), &fill, tiles, true);
    }

    single_launch(gpu, sec)?;
    timing(gpu, sec, LARGE_TABLES[0])
}

/// The single launch, wrong on purpose: its wrong cells are counted and
/// reported, never judged, since CUDA promises no order either way.
fn single_launch(gpu: &Gpu, sec: &mut GpuSection) -> Result<(), String> {
    sec.line(format!(
        "one launch for the whole table (wrong on purpose), {SINGLE_LAUNCH_RUNS} runs each, wrong cells against the scalar DP:"
    ));
    for (rows, cols, block) in SINGLE_LAUNCH_TABLES {
        let reference = scalar_dp(rows, cols);
        let mut wrong = Vec::with_capacity(SINGLE_LAUNCH_RUNS);
        for _ in 0..SINGLE_LAUNCH_RUNS {
            let (table, _) = single_launch_on_gpu(gpu, rows, cols, block)?;
            let a = compare(&table, &reference);
            wrong.push((a.unwritten + a.mismatched).to_string());
        }
        sec.line(format!("  {rows}x{cols}, {block} blocks: {} of {} cells wrong", wrong.join(", "), rows * cols));
    }
    sec.line("  (a demonstration, not a verdict: nothing orders a cell after its neighbours, so a GPU");
    sec.line("  may or may not show the race on a given run; 0 on a run proves nothing)");
    Ok(())
}

/// The per-diagonal and tiled fills of one table side by side, medians of a
/// few runs, beside the host's scalar DP. The times are printed, never
/// asserted; the timed tables are still checked, in one verdict.
fn timing(gpu: &Gpu, sec: &mut GpuSection, (rows, cols, block_x, tile): (u64, u64, u32, u32)) -> Result<(), String> {
    const REPEATS: usize = 3;
    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
    sec.line(format!("times on the {rows}x{cols} table, median of {REPEATS} fills (timings vary; never asserted):"));
    let start = Instant::now();
    let reference = scalar_dp(rows, cols);
    let host_ms = start.elapsed().as_secs_f64() * 1e3;
    sec.line(format!("  scalar DP on the host, one core: {host_ms:.1} ms"));
    let mut bad_fills = 0;
    for tiled in [false, true] {
        let (mut device, mut wall, mut launches) = (Vec::new(), Vec::new(), 0);
        for _ in 0..REPEATS {
            let fill = if tiled { tiled_on_gpu(gpu, rows, cols, tile)? } else { wavefront_on_gpu(gpu, rows, cols, block_x)? };
            bad_fills += usize::from(!compare(&fill.table, &reference).ok());
            device.push(fill.kernel_ms as f64);
            wall.push(fill.wall_ms);
            launches = fill.launches;
        }
        let name = if tiled {
            format!("lattice_tiled ({tile}x{tile} tiles)")
        } else {
            format!("lattice_wavefront (block_dim_x={block_x})")
        };
        sec.line(format!(
            "  {name}: {launches} launches, {:.1} ms of device time summed over them, {:.1} ms of wall time",
            median(device),
            median(wall)
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

    #[test]
    fn every_launch_is_within_cuda_limits() {
        let source = SOURCE_DP_CASES.iter().map(|&(r, c)| (r, c, SOURCE_BLOCK_X, SOURCE_TILE));
        for (rows, cols, block_x, tile) in source.chain(LARGE_TABLES) {
            for d in 0..diagonal_count(rows, cols) {
                let cfg = wavefront_config(d, rows, cols, block_x).unwrap();
                assert!(cfg.threads_x() >= diagonal_len(d, rows, cols) && cfg.grid.y == 1);
            }
            // A tile x tile block must hold at most 1024 threads.
            LaunchConfig::check_block(Dim2::new(tile, tile)).unwrap();
        }
        for (rows, cols, block) in SINGLE_LAUNCH_TABLES {
            LaunchConfig::for_matrix(rows, cols, block).unwrap();
        }
    }

    #[test]
    fn the_large_tables_take_the_launch_counts_the_section_expects() {
        // 4096x4096: 8191 diagonals, and 128 + 128 - 1 diagonals of 32x32 tiles.
        let (rows, cols, _, tile) = LARGE_TABLES[0];
        assert_eq!(diagonal_count(rows, cols), 8191);
        assert_eq!(diagonal_count(rows.div_ceil(tile as u64), cols.div_ceil(tile as u64)), 255);
        // The simulator counts tiled launches the same way the GPU loop does.
        let (_, launches) = simulate_tiled(37, 53, 8, &BlockOrder::Forward, Interleaving::OneAtATime).unwrap();
        assert_eq!(launches, diagonal_count(37u64.div_ceil(8), 53u64.div_ceil(8)));
    }
}
