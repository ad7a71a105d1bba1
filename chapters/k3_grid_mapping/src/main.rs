//! `cargo run -p k3_grid_mapping`: prints the K.3 worked example. With
//! `--rows`, `--cols`, `--block-x` or `--block-y` it builds the launch for
//! that shape under both mappings, proves the coverage and counts sectors.

use clap::Parser;
use k3_grid_mapping::{experiment_report, worked_example};
use ktrav::cli::{self, size_in};
use ktrav::Dim2;

#[derive(Parser, Debug)]
#[command(allow_negative_numbers = true, about = "Appendix K.3: mapping matrix coordinates onto CUDA grids")]
struct Args {
    /// Matrix rows for a custom run (default 1000)
    #[arg(long, value_parser = size_in(1 << 26))]
    rows: Option<u64>,
    /// Matrix columns for a custom run (default 1000)
    #[arg(long, value_parser = size_in(1 << 26))]
    cols: Option<u64>,
    /// Threads per block along x (default 32); x times y may not pass 1024
    #[arg(long, value_parser = size_in(1 << 16))]
    block_x: Option<u64>,
    /// Threads per block along y (default 8)
    #[arg(long, value_parser = size_in(1 << 16))]
    block_y: Option<u64>,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    if args.rows.is_none() && args.cols.is_none() && args.block_x.is_none() && args.block_y.is_none() {
        anstream::print!("{}", worked_example());
        ktrav::gpu::print_section(k3_grid_mapping::gpu::checks);
        return;
    }
    // size_in caps both block sides at 2^16, so they fit in u32.
    let block = Dim2::new(args.block_x.unwrap_or(32) as u32, args.block_y.unwrap_or(8) as u32);
    let report = experiment_report(args.rows.unwrap_or(1000), args.cols.unwrap_or(1000), block);
    anstream::print!("{}", cli::or_exit(report));
}
