//! `cargo run -p k7_diagonal`: prints the K.7 worked example and what this
//! book adds to it (exact counts, the single-launch failure, the tiled
//! wavefront), then fills the table on the GPU if there is one
//! (`gpu::checks`). With `--rows`/`--cols` it runs every version on that
//! shape in the simulator.

use clap::Parser;
use k7_diagonal::{exactness_report, shape_report, single_launch_report, tiled_report, worked_example};
use ktrav::cli::{self, size_in};

/// The simulator keeps a few tables of this many cells in memory.
const MAX_CELLS: u64 = 1 << 22;

#[derive(Parser, Debug)]
#[command(allow_negative_numbers = true, about = "Appendix K.7: diagonal order, the lattice-path wavefront, and why it needs one launch per diagonal")]
struct Args {
    /// Table rows for a custom run (default 9)
    #[arg(long, value_parser = size_in(1 << 22))]
    rows: Option<u64>,
    /// Table columns for a custom run (default 6)
    #[arg(long, value_parser = size_in(1 << 22))]
    cols: Option<u64>,
    /// Threads per block of each per-diagonal launch
    #[arg(long, default_value = "4", value_parser = size_in(1024))]
    block_x: u64,
    /// Tile side of the tiled wavefront (a tile x tile block, so at most 32)
    #[arg(long, default_value = "4", value_parser = size_in(1024))]
    tile: u64,
    /// Seed of the shuffled block order every launch runs in
    #[arg(long, default_value = "1")]
    seed: u64,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    if args.rows.is_none() && args.cols.is_none() {
        anstream::print!("{}", worked_example());
        for part in [exactness_report(), single_launch_report(), tiled_report()] {
            println!();
            anstream::print!("{part}");
        }
        ktrav::gpu::print_section(k7_diagonal::gpu::checks);
        return;
    }
    let (rows, cols) = (args.rows.unwrap_or(9), args.cols.unwrap_or(6));
    if rows * cols > MAX_CELLS {
        cli::fail(&format!("a {rows}x{cols} table has more than {MAX_CELLS} cells, the simulator's limit"));
    }
    let report = shape_report(rows, cols, args.block_x as u32, args.tile as u32, args.seed);
    anstream::print!("{}", cli::or_exit(report));
}
