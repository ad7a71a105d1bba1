//! `cargo run -p k2_transpose`: prints the K.2 worked example, then the GPU
//! section (`KTRAV_GPU_LARGE=1` adds a 46341 x 46341 matrix there). With
//! `--rows`, `--cols` or `--tile` it checks the tiled transpose on that
//! shape and traces both tiles' shared-memory banks there; `--gpu` with
//! `--rows`/`--cols` runs every kernel and version on the GPU at that shape.
//!
//! `check FILE.cu` checks a student's own kernel against the chapter's
//! lab exercise (`ktrav::lab`); `sim-check EXERCISE` checks the student's
//! own Rust twin of it on the simulator, with no GPU.

use clap::{ArgGroup, Parser};
use k2_transpose::{experiment_report, validate, CHAPTER, MAX_ELEMENTS};
use ktrav::Shape;
use ktrav_term::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(args_conflicts_with_subcommands = true, disable_help_subcommand = true, allow_negative_numbers = true, about = "Appendix K.2: a tiled transpose, bank conflicts and boundary checks",
    group(ArgGroup::new("shape").multiple(true).args(["rows", "cols"])))]
struct Args {
    #[command(subcommand)]
    lab: Option<ktrav_gpu::commands::Lab>,
    /// Input rows for a custom run (at most 16777216 elements in all)
    #[arg(long, default_value = "70", value_parser = size_in(MAX_ELEMENTS))]
    rows: u64,
    /// Input columns for a custom run (at most 16777216 elements in all)
    #[arg(long, default_value = "45", value_parser = size_in(MAX_ELEMENTS))]
    cols: u64,
    /// Tile width, also the block's side (at most 32, since a block holds 1024 threads)
    #[arg(long, default_value = "32", value_parser = size_in(1 << 16))]
    tile: u64,
    /// Run every kernel and version on the GPU at this shape, checked against the plain transpose, then timed beside a device copy
    #[arg(long, requires = "shape", conflicts_with = "tile")]
    gpu: bool,
}

fn main() {
    std::process::exit(cli::finish(run()))
}

/// The chapter's command; `Ok` is the exit code.
fn run() -> Result<i32, cli::Exit> {
    let (args, custom) = cli::parse_typed::<Args>(&["rows", "cols", "tile"])?;
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
    let tile = args.tile as u32; // size_in caps it at 2^16
    cli::usage(validate(shape, tile))?;
    cli::print(&cli::usage(experiment_report(shape, tile))?)?;
    Ok(0)
}
