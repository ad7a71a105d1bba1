//! `cargo run -p k7_diagonal`: prints the K.7 worked example and what this
//! book adds to it (exact counts, the single-launch failure, the tiled
//! wavefront), then fills the table on the GPU if there is one
//! (`gpu::checks`). With `--rows`/`--cols` it runs every version on that
//! shape in the simulator; with `--gpu` as well, it runs every kernel and
//! version on the GPU at that shape.
//!
//! `check FILE.cu` checks a student's own kernel against the chapter's
//! lab exercise (`ktrav::lab`); `sim-check EXERCISE` checks the student's
//! own Rust twin of it on the simulator, with no GPU.

use clap::{ArgGroup, Parser};
use k7_diagonal::{shape_report, ShapeWork, CHAPTER};
use ktrav::Shape;
use ktrav_term::cli::{self, size_in};
use ktrav_term::progress;

/// The simulator keeps a few tables of this many cells in memory (about
/// 0.3 GB at the limit).
const MAX_CELLS: u64 = 1 << 22;
/// Simulated steps (see `ShapeWork`): a few seconds in a release build.
const MAX_WORK: u64 = 1 << 31;
/// Runs with fewer steps than this finish in well under a second.
const QUICK_WORK: u64 = 1 << 28;

#[derive(Parser, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true,
    allow_negative_numbers = true,
    about = "Appendix K.7: diagonal order, the lattice-path wavefront, and why it needs one launch per diagonal",
    group(ArgGroup::new("shape").multiple(true).args(["rows", "cols"]))
)]
struct Args {
    #[command(subcommand)]
    lab: Option<ktrav_gpu::commands::Lab>,
    /// Table rows for a custom run, 9 when only --cols is given (at most 4194304)
    #[arg(long, value_parser = size_in(1 << 22))]
    rows: Option<u64>,
    /// Table columns for a custom run, 6 when only --rows is given (at most 4194304)
    #[arg(long, value_parser = size_in(1 << 22))]
    cols: Option<u64>,
    /// Threads per block of each per-diagonal launch (at most 1024)
    #[arg(long, default_value = "4", value_parser = size_in(1024), requires = "shape")]
    block_x: u64,
    /// Tile side of the tiled wavefront (at most 32, since a tile x tile block holds at most 1024 threads)
    #[arg(long, default_value = "4", value_parser = size_in(32), requires = "shape")]
    tile: u64,
    /// Seed of the shuffled block order every launch runs in (at most 18446744073709551615)
    #[arg(long, default_value = "1", value_parser = cli::seed, requires = "shape")]
    seed: u64,
    /// Run every kernel and version on the GPU at this shape, checked against the scalar DP, then timed against the per-diagonal launches
    #[arg(long, requires = "shape", conflicts_with_all = ["block_x", "tile", "seed"])]
    gpu: bool,
}

fn main() {
    std::process::exit(cli::finish(run()))
}

/// The chapter's command; `Ok` is the exit code.
fn run() -> Result<i32, cli::Exit> {
    let args: Args = cli::parse()?;
    if let Some(command) = &args.lab {
        return command.run(&CHAPTER);
    }
    if args.rows.is_none() && args.cols.is_none() {
        return CHAPTER.run_default();
    }
    let shape = Shape::new(args.rows.unwrap_or(9), args.cols.unwrap_or(6));
    if args.gpu {
        return CHAPTER.run_at_shape(shape);
    }
    cli::check_limit("table cells", shape.checked_elements(), MAX_CELLS)?;
    let (block_x, tile) = (args.block_x as u32, args.tile as u32);
    let work = cli::usage(ShapeWork::of(shape, block_x, tile, 1))?.total();
    cli::check_limit("simulated steps", Some(work), MAX_WORK)?;
    let bar = progress::bar("simulating", work, QUICK_WORK);
    let report = shape_report(shape, block_x, tile, args.seed, &mut |steps| bar.inc(steps));
    bar.finish_and_clear();
    cli::print(&cli::usage(report)?)?;
    Ok(0)
}
