//! `cargo run -p k2_transpose`: prints the K.2 worked example. With
//! `--rows`, `--cols` or `--tile` it checks the tiled transpose on that
//! shape and traces both tiles' shared-memory banks there.

use clap::Parser;
use k2_transpose::gpu::Scale;
use k2_transpose::{experiment_report, worked_example};
use ktrav::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(allow_negative_numbers = true, about = "Appendix K.2: a tiled transpose, bank conflicts and boundary checks")]
struct Args {
    /// Input rows for a custom run (default 70)
    #[arg(long, value_parser = size_in(1 << 24))]
    rows: Option<u64>,
    /// Input columns for a custom run (default 45)
    #[arg(long, value_parser = size_in(1 << 24))]
    cols: Option<u64>,
    /// Tile width, also the block's side: at most 32, since a block holds 1024 threads (default 32)
    #[arg(long, value_parser = size_in(1 << 16))]
    tile: Option<u64>,
    /// On a GPU, also transpose a 46341 x 46341 matrix (2^31 + 1 elements, 17 GB of device memory)
    #[arg(long)]
    large: bool,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    if args.rows.is_none() && args.cols.is_none() && args.tile.is_none() {
        anstream::print!("{}", worked_example());
        let scale = if args.large { Scale::Large } else { Scale::Default };
        ktrav::gpu::print_section(|gpu, sec| k2_transpose::gpu::checks(gpu, sec, scale));
        return;
    }
    let tile = args.tile.unwrap_or(32) as u32; // size_in caps it at 2^16
    let report = experiment_report(args.rows.unwrap_or(70), args.cols.unwrap_or(45), tile);
    anstream::print!("{}", cli::or_exit(report));
}
