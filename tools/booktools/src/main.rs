//! `booktools`: the book's own tooling, for its maintainers.
//!
//! * `booktools refresh` rewrites `book/outputs/`, `book/figures/` and the
//!   pages and charts made from `book/measured/` from the code (what
//!   `scripts/refresh-outputs` runs; review the diff before committing);
//! * `booktools profiled` prints, one per line, the chapter and kernel of
//!   every kernel the hardware page profiles with Nsight Compute (what
//!   `scripts/measure` reads).

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
    /// Print "CHAPTER KERNEL" for every kernel the hardware page profiles with Nsight Compute
    Profiled,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    match args.command {
        Command::Refresh => refresh(),
        Command::Profiled => {
            for (ch, prediction) in booktools::profiled() {
                cli::print(&format!("{} {}\n", ch.id, prediction.kernel));
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
