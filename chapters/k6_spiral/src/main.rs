//! `cargo run -p k6_spiral`: prints the K.6 worked example and what this
//! book adds to it (the inverse closed form, the gather kernel, coalescing),
//! then launches both kernels on the GPU if there is one (`gpu::checks`).
//! With `--rows`/`--cols` (and optionally `--block-x`/`--block-y`) it checks
//! both closed forms and both kernels on that shape instead; with `--gpu`
//! as well, it runs every kernel and version on the GPU at that shape.
//!
//! `check FILE.cu` checks a student's own kernel against the chapter's
//! lab exercise (`ktrav::lab`); `sim-check EXERCISE` checks the student's
//! own Rust twin of it on the simulator, with no GPU.

use clap::{ArgGroup, Parser};
use k6_spiral::{shape_report, shape_report_work, CHAPTER};
use ktrav::{Dim2, Shape};
use ktrav_term::cli::{self, size_in};
use ktrav_term::progress;

/// The simulator keeps a few vectors of this many elements in memory
/// (about 0.5 GB at the limit).
const MAX_ELEMENTS: u64 = 1 << 24;
/// Simulated steps (see `shape_report_work`): a few seconds in a release build.
const MAX_WORK: u64 = 1 << 29;
/// Runs with fewer steps than this finish in well under a second.
const QUICK_WORK: u64 = 1 << 25;

#[derive(Parser, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true,
    allow_negative_numbers = true,
    about = "Appendix K.6: spiral order's O(1) closed form, its inverse, and two CUDA kernels built on them",
    group(ArgGroup::new("shape").multiple(true).args(["rows", "cols"]))
)]
struct Args {
    #[command(subcommand)]
    lab: Option<ktrav_gpu::commands::Lab>,
    /// Matrix rows for a custom check, 9 when only --cols is given (at most 16777216)
    #[arg(long, value_parser = size_in(1 << 24))]
    rows: Option<u64>,
    /// Matrix columns for a custom check, 6 when only --rows is given (at most 16777216)
    #[arg(long, value_parser = size_in(1 << 24))]
    cols: Option<u64>,
    /// Threads per block along x, the column axis (at most 1024, and block-x times block-y at most 1024)
    #[arg(long, default_value = "4", value_parser = size_in(1024), requires = "shape")]
    block_x: u64,
    /// Threads per block along y, the row axis (at most 1024, and block-x times block-y at most 1024)
    #[arg(long, default_value = "4", value_parser = size_in(1024), requires = "shape")]
    block_y: u64,
    /// Run every kernel and version on the GPU at this shape, checked against the inverse closed form, then timed beside a device copy
    #[arg(long, requires = "shape", conflicts_with_all = ["block_x", "block_y"])]
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
    cli::check_limit("matrix elements", shape.checked_elements(), MAX_ELEMENTS)?;
    let block = Dim2::new(args.block_x as u32, args.block_y as u32);
    let work = cli::usage(shape_report_work(shape, block))?;
    cli::check_limit("simulated steps", Some(work), MAX_WORK)?;
    let bar = progress::bar("simulating", work, QUICK_WORK);
    let report = shape_report(shape, block, &mut |steps| bar.inc(steps));
    bar.finish_and_clear();
    cli::print(&cli::usage(report)?)?;
    Ok(0)
}
