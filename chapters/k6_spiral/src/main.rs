//! `cargo run -p k6_spiral`: prints the K.6 worked example and what this
//! book adds to it (the inverse closed form, the gather kernel, coalescing),
//! then launches both kernels on the GPU if there is one (`gpu::checks`).
//! With `--rows`/`--cols` (and optionally `--block-x`/`--block-y`) it checks
//! both closed forms and both kernels on that shape instead.

use clap::Parser;
use k6_spiral::{beyond_the_source, shape_report, worked_example};
use ktrav::cli::{self, size_in};
use ktrav::Dim2;

/// The simulator keeps a few vectors of this many elements in memory.
const MAX_ELEMENTS: u64 = 1 << 24;

#[derive(Parser, Debug)]
#[command(allow_negative_numbers = true, about = "Appendix K.6: spiral order's O(1) closed form, its inverse, and two CUDA kernels built on them")]
struct Args {
    /// Matrix rows for a custom check (default 9)
    #[arg(long, value_parser = size_in(1 << 24))]
    rows: Option<u64>,
    /// Matrix columns for a custom check (default 6)
    #[arg(long, value_parser = size_in(1 << 24))]
    cols: Option<u64>,
    /// Threads per block along x, the column axis
    #[arg(long, default_value = "4", value_parser = size_in(1024))]
    block_x: u64,
    /// Threads per block along y, the row axis
    #[arg(long, default_value = "4", value_parser = size_in(1024))]
    block_y: u64,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    if args.rows.is_none() && args.cols.is_none() {
        anstream::print!("{}", worked_example());
        println!();
        anstream::print!("{}", beyond_the_source());
        ktrav::gpu::print_section(k6_spiral::gpu::checks);
        return;
    }
    let (rows, cols) = (args.rows.unwrap_or(9), args.cols.unwrap_or(6));
    if rows * cols > MAX_ELEMENTS {
        cli::fail(&format!("a {rows}x{cols} matrix has more than {MAX_ELEMENTS} elements, the simulator's limit"));
    }
    let block = Dim2::new(args.block_x as u32, args.block_y as u32);
    anstream::print!("{}", cli::or_exit(shape_report(rows, cols, block)));
}
