//! `cargo run -p k1_row_col_major`: prints the K.1 worked example.
//! With shape or cache flags it runs the experiment on other sizes; with
//! `--measure` it also times the two traversals on this CPU.
//!
//! `sim-check` checks the student's own prediction (the lab exercise,
//! `exercises/k1_row_col_major/predict_misses.rs`) against the cache
//! simulator.

use clap::Parser;
use k1_row_col_major::{
    experiment_report, measure, slot_checks, validate, CacheConfig, CHAPTER, MAX_MEASURE_SIZE, MAX_SLOT_CHECKS,
};
use ktrav::Shape;
use ktrav_term::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true,
    allow_negative_numbers = true,
    about = "Appendix K.1: storage order and visiting order"
)]
struct Args {
    #[command(subcommand)]
    lab: Option<ktrav::lab::simcheck::SimCommand>,
    /// Matrix rows for a custom experiment (at most 16777216, and 1073741824 elements in all)
    #[arg(long, default_value = "8", value_parser = size_in(1 << 24))]
    rows: u64,
    /// Matrix columns for a custom experiment (at most 16777216, and 1073741824 elements in all)
    #[arg(long, default_value = "64", value_parser = size_in(1 << 24))]
    cols: u64,
    /// Cache capacity in lines (at most 65536)
    #[arg(long, default_value = "4", value_parser = size_in(1 << 16))]
    lines: u64,
    /// Lines per set; leaving it out means --lines, fully associative (at most 65536)
    #[arg(long, value_parser = size_in(1 << 16))]
    ways: Option<u64>,
    /// Bytes per cache line (at most 4096)
    #[arg(long, default_value = "64", value_parser = size_in(1 << 12))]
    line_bytes: u64,
    /// Also time both traversals of an N x N matrix on this CPU (use --release)
    #[arg(long)]
    measure: bool,
    /// Matrix side N for --measure (at most 32768)
    #[arg(long, default_value = "4096", value_parser = size_in(MAX_MEASURE_SIZE), requires = "measure")]
    measure_size: u64,
}

fn main() {
    std::process::exit(cli::finish(run()))
}

/// The chapter's command; `Ok` is the exit code.
fn run() -> Result<i32, cli::Exit> {
    let (args, custom) = cli::parse_typed::<Args>(&["rows", "cols", "lines", "ways", "line_bytes"])?;
    if let Some(command) = &args.lab {
        return command.run(&CHAPTER);
    }
    if args.measure {
        cli::warn_if_debug("timings");
    }
    let code = if custom {
        let shape = Shape::new(args.rows, args.cols);
        let cache =
            CacheConfig { lines: args.lines, line_bytes: args.line_bytes, ways: args.ways.unwrap_or(args.lines) };
        cli::usage(validate(shape, &cache))?;
        cli::check_limit("cache-slot checks", slot_checks(shape, &cache), MAX_SLOT_CHECKS)?;
        cli::print(&experiment_report(shape, cache))?;
        0
    } else {
        CHAPTER.run_default()?
    };
    if code != 0 {
        return Ok(code);
    }
    if args.measure {
        cli::print("\n")?;
        cli::print(&measure(args.measure_size, 5))?;
    }
    Ok(0)
}
