//! `cargo run` at the workspace root: every chapter's report, in book order.
//! `cargo run -- doctor` says what this machine can run, the first command
//! of a lab; `cargo run -- grade ROOM ...` grades a whole room's
//! submissions (`ktrav_grade`); `cargo run -- handout DIR` writes the
//! students' handout of starters; `cargo run --release -- record FILE` runs
//! every chapter's GPU section and writes what it measured as the record
//! the book's measured pages are rendered from. `--list` names the chapters for a reader;
//! `--ids` and `--gpu-ids` name them for scripts, one id per line.

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
    /// List the chapters and the command that runs each
    #[arg(long, conflicts_with_all = ["ids", "gpu_ids"])]
    list: bool,
    /// Print every chapter's id, one per line
    #[arg(long, conflicts_with = "gpu_ids")]
    ids: bool,
    /// Print the id of every chapter with an "On this GPU" section, one per line
    #[arg(long)]
    gpu_ids: bool,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// What this machine can run: GPU, compute capability, driver, whether the embedded kernels load, NVRTC and cuBLAS
    Doctor,
    /// Run every chapter's GPU section and write what it measured as a record for book/measured/ (needs a GPU)
    Record {
        /// The JSON file to write (its folder must exist)
        file: std::path::PathBuf,
    },
    /// Grade a room: check every submission in a process of its own (one worker per GPU, or a Slurm array job), keep each result, write a gradebook and Gradescope and PrairieLearn results
    Grade(Box<ktrav_grade::GradeArgs>),
    /// Write the students' handout into DIR (new or empty): every lab exercise's starter, no solution and no wrong kernel
    Handout { dir: std::path::PathBuf },
    /// For scripts/make-room: each `// expect:` line of each FILE as the columns of its manifest row
    #[command(name = "expect-columns", hide = true)]
    ExpectColumns {
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
}

/// The lab's exercises, as grading names them, each with the buffers of
/// its largest shape (which size a Slurm task's memory).
fn catalogue() -> Vec<ktrav_grade::exercise::ExerciseRef> {
    use ktrav::lab::largest_bytes;
    CHAPTERS
        .iter()
        .flat_map(|ch| {
            ch.exercises.iter().map(|e| {
                let bytes = ktrav_grade::exercise::Bytes {
                    public: largest_bytes(e, false, false),
                    public_large: largest_bytes(e, false, true),
                    hidden: largest_bytes(e, true, false),
                    hidden_large: largest_bytes(e, true, true),
                };
                ktrav_grade::exercise::ExerciseRef::new(ch.section, ch.id, e.id).with_bytes(bytes)
            })
        })
        .collect()
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
    if let Some(Command::Grade(grade)) = &args.command {
        match ktrav_grade::grade(grade, &catalogue()) {
            Ok(code) => std::process::exit(code),
            Err(ktrav_grade::GradeError::Usage(message)) => cli::fail(&message),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(e.code())
            }
        }
    }
    if let Some(Command::Record { file }) = &args.command {
        std::process::exit(record(file));
    }
    if let Some(Command::Handout { dir }) = &args.command {
        let written = cli::or_exit(appendix_k::handout::write(dir));
        cli::print(&format!("wrote {} starters into {}: {}\n", written.len(), dir.display(), written.join(", ")));
        std::process::exit(0);
    }
    if let Some(Command::ExpectColumns { files }) = &args.command {
        cli::print(&cli::or_exit(appendix_k::room::expect_columns(files)));
        std::process::exit(0);
    }
    if let Some(Command::Doctor) = args.command {
        cli::print(&ktrav_gpu::doctor::report());
    } else if args.list {
        cli::print(&format!("{}\n", chapter_list()));
    } else if args.ids || args.gpu_ids {
        for ch in CHAPTERS.iter().filter(|ch| args.ids || ch.gpu_section.is_some()) {
            cli::print(&format!("{}\n", ch.id));
        }
    } else {
        for (i, ch) in CHAPTERS.iter().enumerate() {
            if i > 0 {
                cli::print("\n");
            }
            cli::print(&ch.report_text());
        }
    }
}

/// `record FILE`: every chapter's GPU section, then the record of what they
/// measured, written only when every section passed. The exit code: 0
/// written, 1 a section failed, 2 bad input, 3 no GPU.
fn record(file: &std::path::Path) -> i32 {
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !folder.is_dir() {
        cli::fail(&format!("cannot write {}: no folder {}", file.display(), folder.display()));
    }
    let gpu = match ktrav_gpu::open() {
        Ok(g) => g,
        Err(why) => {
            eprintln!("error: nothing recorded: no GPU ({why})");
            return ktrav::lab::COULD_NOT_CHECK;
        }
    };
    let mut sections = Vec::new();
    let mut failed = Vec::new();
    for ch in CHAPTERS {
        let Some(section) = ch.gpu_section else { continue };
        eprintln!("{}: its GPU section", ch.heading());
        match section() {
            ktrav::SectionOutcome::Ran { failures: 0, record, .. } => sections.push(record),
            other => {
                cli::print(&format!("{}: FAILED\n{}", ch.heading(), ktrav::report::plain(&other.text())));
                failed.push(ch.id);
            }
        }
    }
    if !failed.is_empty() {
        eprintln!("error: nothing recorded: the GPU sections of {} did not pass", failed.join(", "));
        return 1;
    }
    let large = if std::env::var_os(ktrav::section::LARGE_ENV).is_some() { "KTRAV_GPU_LARGE=1 " } else { "" };
    let run = ktrav_gpu::record::run_on(&gpu, &format!("{large}appendix_k record FILE"));
    let record = ktrav::measured::Record { run, sections };
    if let Err(e) = std::fs::write(file, record.to_json()) {
        eprintln!("error: cannot write {}: {e}", file.display());
        return 1;
    }
    cli::print(&format!("record written to {}\n", file.display()));
    0
}
