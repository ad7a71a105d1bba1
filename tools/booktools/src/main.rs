//! `booktools`: the book's own tooling, for its maintainers.
//!
//! * `booktools refresh` rewrites `book/outputs/`, `book/figures/` and the
//!   pages and charts made from `book/measured/` from the code (what
//!   `scripts/refresh-outputs` runs; review the diff before committing);
//! * `booktools profiled` prints, one per line, the chapter, kernel and
//!   Nsight Compute metrics (comma-separated) of every kernel the measured
//!   pages read counters of (what `scripts/measure` profiles);
//! * `booktools import DIR` copies what `scripts/measure DIR` wrote into
//!   `book/measured/`, each file under the record's name (`h200` unless
//!   `--name` says otherwise): then run `scripts/refresh-outputs`.

use appendix_k::CHAPTERS;
use clap::Parser;
use ktrav::cli;

/// The book's own tooling: rewriting what the book shows from the code, and
/// what the measurement scripts need to know.
#[derive(Parser, Debug)]
#[command(name = "booktools", disable_help_subcommand = true)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Rewrite book/outputs/, book/figures/ and the measured pages from the code (review the diff before committing)
    Refresh,
    /// Print "CHAPTER KERNEL METRIC,METRIC,..." for every kernel the measured pages read Nsight Compute counters of
    Profiled,
    /// Copy what `scripts/measure DIR` wrote into book/measured/, each file named after the record (NAME.json, NAME-ncu.csv, NAME-*.log, NAME-doctor*.txt)
    Import {
        /// The folder `scripts/measure` wrote
        dir: std::path::PathBuf,
        /// The record's name: the card, as in book/measured/h200.json
        #[arg(long, default_value = "h200")]
        name: String,
    },
}

fn main() {
    let args: Args = cli::parse_or_exit();
    match args.command {
        Command::Refresh => refresh(),
        Command::Profiled => {
            for (ch, kernel, metrics) in booktools::profile_list() {
                cli::print(&format!("{ch} {kernel} {}\n", metrics.join(",")));
            }
        }
        Command::Import { dir, name } => {
            for (from, to) in cli::or_exit(booktools::import(&dir, &name)) {
                cli::print(&format!("{} -> {}\n", from.display(), to.display()));
            }
        }
    }
}

fn refresh() {
    // K.2's in-flight table reads ptxas's register counts from the committed
    // report: bring it up to date first (a change shows in the outputs only
    // once the chapter is rebuilt, so refresh again after it).
    let committed = booktools::measured_dir().join(k2_transpose::PTXAS_REPORT_FILE);
    match ktrav_gpu::kernels::find("k2_transpose").and_then(|k| k.ptxas_report).map(k2_transpose::stable_ptxas) {
        Some(report) if report != k2_transpose::PTXAS_REPORT => {
            cli::or_exit(std::fs::write(&committed, report));
            cli::print(&format!("K.2 {} changed: run scripts/refresh-outputs again\n", committed.display()));
        }
        Some(_) => {}
        None => cli::print("K.2: nvcc did not compile the kernels, the committed ptxas report is kept\n"),
    }
    let outputs = ktrav::book::outputs_dir();
    for ch in CHAPTERS {
        for (name, text) in (ch.shown_outputs)() {
            let path = outputs.join(name);
            cli::or_exit(std::fs::write(&path, ktrav::report::plain(&text)));
            cli::print(&format!("{} {}\n", ch.section, path.display()));
        }
    }
    let figures = ktrav::book::figures_dir();
    cli::or_exit(std::fs::create_dir_all(&figures));
    for (part, name, svg) in appendix_k::figures() {
        let path = figures.join(name);
        cli::or_exit(std::fs::write(&path, svg));
        cli::print(&format!("{part} {}\n", path.display()));
    }
    for (path, text) in cli::or_exit(booktools::measured_pages()) {
        cli::or_exit(std::fs::write(&path, text));
        cli::print(&format!("measured {}\n", path.display()));
    }
}
