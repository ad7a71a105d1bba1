//! `booktools`: the book's own tooling, for its maintainers.
//!
//! * `booktools refresh` rewrites `book/outputs/`, `book/figures/`,
//!   `book/values.txt` and the pages and charts made from `book/measured/`
//!   from the code (what
//!   `scripts/refresh-outputs` runs; review the diff before committing);
//! * `booktools values` rewrites `book/values.txt` alone;
//! * `booktools numbers [--list]` counts the literal numbers left in each
//!   page's prose;
//! * `booktools profiled` prints, one per line, the chapter, kernel and
//!   Nsight Compute metrics (comma-separated) of every kernel the measured
//!   pages read counters of (what `scripts/measure` profiles);
//! * `booktools import DIR` copies what `scripts/measure DIR` wrote into
//!   `book/measured/`, each file under the record's name (`h200` unless
//!   `--name` says otherwise): then run `scripts/refresh-outputs`.

use appendix_k::CHAPTERS;
use clap::Parser;
use ktrav_term::cli;

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
    /// Rewrite book/outputs/, book/figures/, book/values.txt and the measured pages from the code (review the diff before committing)
    Refresh,
    /// Rewrite book/values.txt alone, the values the prose's {{value NAME}} directives read
    Values,
    /// Count the literal numbers left in each page's prose (outside code, directives and {{value}})
    Numbers {
        /// List every number with its page and line
        #[arg(long)]
        list: bool,
    },
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
    std::process::exit(cli::finish(run().map(|()| 0)))
}

fn run() -> Result<(), cli::Exit> {
    let args: Args = cli::parse()?;
    match args.command {
        Command::Refresh => refresh(),
        Command::Values => write_values(),
        Command::Numbers { list } => numbers(list),
        Command::Profiled => {
            for (ch, kernel, metrics) in booktools::profile_list() {
                cli::print(&format!("{ch} {kernel} {}\n", metrics.join(",")))?;
            }
            Ok(())
        }
        Command::Import { dir, name } => {
            for (from, to) in cli::usage(booktools::import(&dir, &name))? {
                cli::print(&format!("{} -> {}\n", from.display(), to.display()))?;
            }
            Ok(())
        }
    }
}

fn numbers(list: bool) -> Result<(), cli::Exit> {
    let pages = cli::usage(booktools::numbers::pages())?;
    let counted = cli::usage(booktools::numbers::count(&pages))?;
    let total: usize = counted.iter().map(|(_, n)| n.len()).sum();
    for (page, numbers) in &counted {
        cli::print(&format!("{:>5}  {page}\n", numbers.len()))?;
        if list {
            for (line, n) in numbers {
                cli::print(&format!("         {page}:{line}: {n}\n"))?;
            }
        }
    }
    cli::print(&format!("{total:>5}  in all\n"))
}

fn write_values() -> Result<(), cli::Exit> {
    let path = booktools::values::values_path();
    cli::usage(std::fs::write(&path, cli::usage(booktools::values::values_file())?))?;
    cli::print(&format!("values {}\n", path.display()))
}

fn refresh() -> Result<(), cli::Exit> {
    // K.2's in-flight table reads ptxas's register counts from the committed
    // report: bring it up to date first (a change shows in the outputs only
    // once the chapter is rebuilt, so refresh again after it).
    let committed = booktools::measured_dir().join(k2_transpose::PTXAS_REPORT_FILE);
    match ktrav_gpu::kernels::find("k2_transpose").and_then(|k| k.ptxas_report).map(k2_transpose::stable_ptxas) {
        Some(report) if report != k2_transpose::PTXAS_REPORT => {
            cli::usage(std::fs::write(&committed, report))?;
            cli::print(&format!("K.2 {} changed: run scripts/refresh-outputs again\n", committed.display()))?;
        }
        Some(_) => {}
        None => cli::print("K.2: nvcc did not compile the kernels, the committed ptxas report is kept\n")?,
    }
    let outputs = ktrav_book::outputs_dir();
    for ch in CHAPTERS {
        for (name, text) in (ch.shown_outputs)() {
            let path = outputs.join(name);
            cli::usage(std::fs::write(&path, ktrav_term::report::plain(&text)))?;
            cli::print(&format!("{} {}\n", ch.section, path.display()))?;
        }
    }
    let figures = ktrav_book::figures_dir();
    cli::usage(std::fs::create_dir_all(&figures))?;
    for (part, name, svg) in appendix_k::figures() {
        let path = figures.join(name);
        cli::usage(std::fs::write(&path, svg))?;
        cli::print(&format!("{part} {}\n", path.display()))?;
    }
    write_values()?;
    for (path, text) in cli::usage(booktools::measured_pages())? {
        cli::usage(std::fs::write(&path, text))?;
        cli::print(&format!("measured {}\n", path.display()))?;
    }
    Ok(())
}
