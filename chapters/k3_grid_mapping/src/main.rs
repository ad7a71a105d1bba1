//! `cargo run -p k3_grid_mapping`: prints the K.3 worked example, then the
//! GPU section. With `--rows`, `--cols`, `--block-x` or `--block-y` it
//! builds the launch for that shape under both mappings, proves the
//! coverage and counts sectors; `--gpu` with `--rows`/`--cols` runs every
//! kernel and version on the GPU at that shape.
//!
//! `check FILE.cu` checks a student's own kernel against the chapter's
//! lab exercise (`ktrav::lab`); `sim-check EXERCISE` checks the student's
//! own Rust twin of it on the simulator, with no GPU.

use clap::{ArgGroup, Parser};
use k3_grid_mapping::{experiment_report, validate, CHAPTER, MAX_ELEMENTS};
use ktrav::{Dim2, Shape};
use ktrav_term::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(args_conflicts_with_subcommands = true, disable_help_subcommand = true, allow_negative_numbers = true, about = "Appendix K.3: from thread indices to matrix cells",
    group(ArgGroup::new("shape").multiple(true).args(["rows", "cols"])))]
struct Args {
    #[command(subcommand)]
    lab: Option<ktrav_gpu::commands::Lab>,
    /// Matrix rows for a custom run (at most 67108864 elements in all)
    #[arg(long, default_value = "1000", value_parser = size_in(MAX_ELEMENTS))]
    rows: u64,
    /// Matrix columns for a custom run (at most 67108864 elements in all)
    #[arg(long, default_value = "1000", value_parser = size_in(MAX_ELEMENTS))]
    cols: u64,
    /// Threads per block along x (x times y at most 1024)
    #[arg(long, default_value = "32", value_parser = size_in(1024))]
    block_x: u64,
    /// Threads per block along y (x times y at most 1024)
    #[arg(long, default_value = "8", value_parser = size_in(1024))]
    block_y: u64,
    /// Run every kernel and version on the GPU at this shape, checked against the source, then timed beside a device copy
    #[arg(long, requires = "shape", conflicts_with_all = ["block_x", "block_y"])]
    gpu: bool,
}

fn main() {
    std::process::exit(cli::finish(run()))
}

/// The chapter's command; `Ok` is the exit code.
fn run() -> Result<i32, cli::Exit> {
    let (args, custom) = cli::parse_typed::<Args>(&["rows", "cols", "block_x", "block_y"])?;
    if let Some(command) = &args.lab {
        return command.run(&CHAPTER);
    }
    if !custom {
        return CHAPTER.run_default();
    }
    let shape = Shape::new(args.rows, args.cols);
    if args.gpu {
        return CHAPTER.run_at_shape(shape);
    }
    cli::check_limit("matrix elements", shape.checked_elements(), MAX_ELEMENTS)?;
    // size_in caps both block sides at 1024, so they fit in u32.
    let block = Dim2::new(args.block_x as u32, args.block_y as u32);
    cli::usage(validate(shape, block))?;
    cli::print(&cli::usage(experiment_report(shape, block))?)?;
    Ok(0)
}
