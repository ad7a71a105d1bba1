//! `cargo run -p k4_boundary_check`: prints the K.4 worked example, the
//! addition run and the block-order distribution, then (on a GPU) runs the
//! three kernels many times and sets the real outcomes beside the simulated
//! ones. With shape or block flags it reruns the experiment on another launch.

use clap::Parser;
use k4_boundary_check::{experiment_report, shown_outputs, validate, MAX_COLS};
use ktrav::cli::{self, size_in};
use ktrav::Dim2;

#[derive(Parser, Debug)]
#[command(allow_negative_numbers = true, about = "Appendix K.4: a 2D bounds check that guards only one axis")]
struct Args {
    /// Matrix rows for a custom experiment (default 4)
    #[arg(long, value_parser = size_in(4096))]
    rows: Option<u64>,
    /// Matrix columns for a custom experiment, below 1000 (default 10)
    #[arg(long, value_parser = size_in(MAX_COLS))]
    cols: Option<u64>,
    /// blockDim.x (default 4)
    #[arg(long, value_parser = size_in(1024))]
    block_x: Option<u64>,
    /// blockDim.y (default 1)
    #[arg(long, value_parser = size_in(1024))]
    block_y: Option<u64>,
    /// Seeded shuffles of all blocks to try (0 for none)
    #[arg(long, default_value = "100", value_parser = clap::value_parser!(u64).range(0..=100_000))]
    shuffles: u64,
    /// First seed of the shuffles
    #[arg(long, default_value = "0")]
    seed: u64,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    let custom = args.rows.is_some() || args.cols.is_some() || args.block_x.is_some() || args.block_y.is_some();
    if custom {
        let (rows, cols) = (args.rows.unwrap_or(4), args.cols.unwrap_or(10));
        let block = Dim2::new(args.block_x.unwrap_or(4) as u32, args.block_y.unwrap_or(1) as u32);
        let cfg = cli::or_exit(validate(rows, cols, block, args.shuffles));
        anstream::print!("{}", experiment_report(&cfg, rows, cols, args.shuffles, args.seed));
    } else {
        for (i, (_, text)) in shown_outputs().iter().enumerate() {
            if i > 0 {
                println!();
            }
            anstream::print!("{text}");
        }
        ktrav::gpu::print_section(k4_boundary_check::gpu::checks);
    }
}
