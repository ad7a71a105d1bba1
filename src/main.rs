//! `cargo run` at the workspace root: every chapter's report, in book order.
//! `cargo run -- --refresh-outputs` rewrites `book/outputs/` and
//! `book/figures/` from the code (see `scripts/refresh-outputs`; review the
//! diff before committing). `cargo run -- doctor` says what this machine
//! can run, the first command of a lab.

use appendix_k::CHAPTERS;
use clap::{CommandFactory, FromArgMatches, Parser};
use ktrav::cli;

/// Appendix K: Matrix Traversal. With no flags, prints every chapter's
/// worked example and what the book adds to it, in book order (no GPU
/// sections: run a chapter on its own for those).
#[derive(Parser, Debug)]
#[command(name = "appendix_k", args_conflicts_with_subcommands = true, disable_help_subcommand = true)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// Rewrite book/outputs/ and book/figures/ from the code (review the diff before committing)
    #[arg(long, conflicts_with = "list")]
    refresh_outputs: bool,
    /// List the chapters and the command that runs each
    #[arg(long)]
    list: bool,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// What this machine can run: GPU, compute capability, driver, whether the embedded kernels load, NVRTC and cuBLAS
    Doctor,
}

fn chapter_list() -> String {
    let lines: Vec<String> =
        CHAPTERS.iter().map(|ch| format!("  cargo run -p {:<18} {}", ch.id, ch.heading())).collect();
    format!("The chapters, each with its own --help:\n{}", lines.join("\n"))
}

fn main() {
    let command = Args::command().after_help(chapter_list());
    let args = match command.try_get_matches().and_then(|m| Args::from_arg_matches(&m)) {
        Ok(args) => args,
        Err(e) => cli::exit_on_clap_error(e),
    };
    if let Some(Command::Doctor) = args.command {
        cli::print(&ktrav_gpu::doctor::report());
    } else if args.list {
        cli::print(&format!("{}\n", chapter_list()));
    } else if args.refresh_outputs {
        refresh();
    } else {
        for (i, ch) in CHAPTERS.iter().enumerate() {
            if i > 0 {
                cli::print("\n");
            }
            cli::print(&ch.report_text());
        }
    }
}

fn refresh() {
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
    for (path, text) in cli::or_exit(appendix_k::measured_pages()) {
        cli::or_exit(std::fs::write(&path, text));
        cli::print(&format!("measured {}\n", path.display()));
    }
}
