//! `cargo run -p k1_row_col_major`: prints the K.1 worked example.
//! With shape or cache flags it runs the experiment on other sizes; with
//! `--measure` it also times the two traversals on this CPU.

use clap::Parser;
use k1_row_col_major::{experiment_report, measure, validate, worked_example, CacheConfig};
use ktrav::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(allow_negative_numbers = true, about = "Appendix K.1: row-major versus column-major, storage is not traversal")]
struct Args {
    /// Matrix rows for a custom experiment (default 8)
    #[arg(long, value_parser = size_in(1 << 24))]
    rows: Option<u64>,
    /// Matrix columns for a custom experiment (default 64)
    #[arg(long, value_parser = size_in(1 << 24))]
    cols: Option<u64>,
    /// Cache capacity in lines (default 4)
    #[arg(long, value_parser = size_in(1 << 16))]
    lines: Option<u64>,
    /// Lines per set; equal to --lines means fully associative (the default)
    #[arg(long, value_parser = size_in(1 << 16))]
    ways: Option<u64>,
    /// Bytes per cache line (default 64)
    #[arg(long, value_parser = size_in(1 << 12))]
    line_bytes: Option<u64>,
    /// Also time both traversals of an N x N matrix on this CPU
    #[arg(long)]
    measure: bool,
    /// Matrix side for --measure
    #[arg(long, default_value = "4096", value_parser = size_in(1 << 15))]
    measure_size: u64,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    let custom = args.rows.is_some()
        || args.cols.is_some()
        || args.lines.is_some()
        || args.ways.is_some()
        || args.line_bytes.is_some();
    if custom {
        let lines = args.lines.unwrap_or(4);
        let cache = CacheConfig { lines, line_bytes: args.line_bytes.unwrap_or(64), ways: args.ways.unwrap_or(lines) };
        let (rows, cols) = (args.rows.unwrap_or(8), args.cols.unwrap_or(64));
        cli::or_exit(validate(rows, cols, &cache));
        anstream::print!("{}", experiment_report(rows, cols, cache));
    } else {
        anstream::print!("{}", worked_example());
    }
    if args.measure {
        println!();
        print!("{}", measure::measure(args.measure_size, 5));
    }
}
