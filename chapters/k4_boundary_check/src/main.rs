//! `cargo run -p k4_boundary_check`: prints the K.4 worked example, the
//! addition run and the block-order distribution, then (on a GPU) runs the
//! three kernels many times and sets the real outcomes beside the simulated
//! ones. With shape or block flags it reruns the experiment on another launch;
//! `--gpu` with `--rows`/`--cols` runs the four kernels on the GPU at that
//! shape instead.
//!
//! `check FILE.cu` checks a student's own kernel against the chapter's
//! lab exercise (`ktrav::lab`); `sim-check EXERCISE` checks the student's
//! own Rust twin of it on the simulator, with no GPU.

use clap::Parser;
use k4_boundary_check::{
    experiment_plan, experiment_report, experiment_work, CHAPTER, MAX_COLS, MAX_SIMULATED_THREADS,
};
use ktrav::{Dim2, Shape};
use ktrav_term::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true,
    allow_negative_numbers = true,
    about = "Appendix K.4: a 2D bounds check that guards only one axis"
)]
struct Args {
    #[command(subcommand)]
    lab: Option<ktrav_gpu::commands::Lab>,
    #[command(flatten)]
    launch: Option<Launch>,
    /// Seeded shuffles of all blocks to try, 0 for none (at most 100000)
    #[arg(long, default_value_t = 100, value_parser = shuffles, requires = "launch")]
    shuffles: u64,
    /// First seed of the shuffles (at most 18446744073709551615)
    #[arg(long, default_value_t = 0, value_parser = cli::seed, requires = "launch")]
    seed: u64,
    /// Run the four kernels on the GPU at the --rows/--cols shape (32x8 blocks), checked cell by cell, then timed beside a device copy
    #[arg(long, requires = "launch", conflicts_with_all = ["block_x", "block_y", "shuffles", "seed"])]
    gpu: bool,
}

/// Any of these runs a custom experiment instead of the chapter's report.
#[derive(clap::Args, Debug)]
#[group(id = "launch", multiple = true)]
struct Launch {
    /// Matrix rows for a custom experiment (at most 4096)
    #[arg(long, default_value_t = 4, value_parser = size_in(4096))]
    rows: u64,
    /// Matrix columns for a custom experiment (at most 999)
    #[arg(long, default_value_t = 10, value_parser = size_in(MAX_COLS))]
    cols: u64,
    /// blockDim.x (at most 1024)
    #[arg(long, default_value_t = 4, value_parser = size_in(1024))]
    block_x: u64,
    /// blockDim.y (at most 1024)
    #[arg(long, default_value_t = 1, value_parser = size_in(1024))]
    block_y: u64,
}

/// The most shuffles a custom experiment may ask for.
const MAX_SHUFFLES: u64 = 100_000;

/// `--shuffles`: a whole number from 0 to [`MAX_SHUFFLES`].
fn shuffles(s: &str) -> anyhow::Result<u64> {
    match s.trim().parse::<u64>() {
        Ok(n) if n <= MAX_SHUFFLES => Ok(n),
        _ => anyhow::bail!("'{s}' is not a number of shuffles from 0 to {MAX_SHUFFLES}"),
    }
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
    let Some(launch) = args.launch else {
        return CHAPTER.run_default();
    };
    let shape = Shape::new(launch.rows, launch.cols);
    if args.gpu {
        return CHAPTER.run_at_shape(shape);
    }
    let plan = cli::usage(experiment_plan(shape, Dim2::new(launch.block_x as u32, launch.block_y as u32)))?;
    cli::check_limit("simulated thread bodies", experiment_work(&plan, args.shuffles), MAX_SIMULATED_THREADS)?;
    cli::print(&experiment_report(&plan, args.shuffles, args.seed))?;
    Ok(0)
}
