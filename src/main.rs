//! `cargo run` at the workspace root: every chapter's report, in book order.
//! `cargo run -- doctor` says what this machine can run, the first command
//! of a lab; `cargo run -- grade ROOM ...` grades a whole room's
//! submissions (`ktrav_grade`); `cargo run -- handout DIR` writes the
//! students' handout of starters; `cargo run --release -- record FILE` runs
//! every chapter's GPU section and writes what it measured as the record
//! the book's measured pages are rendered from. `--list` names the chapters for a reader;
//! `--ids` and `--gpu-ids` name them for scripts, one id per line, and
//! `--exercises` names every lab exercise, one `CHAPTER EXERCISE` per line.

use appendix_k::CHAPTERS;
use clap::{CommandFactory, FromArgMatches, Parser};
use ktrav_term::cli;

/// Appendix K: Matrix Traversal. With no flags, prints every chapter's
/// worked example and what the book adds to it, in book order (no GPU
/// sections: run a chapter on its own for those).
#[derive(Parser, Debug)]
#[command(name = "appendix_k", args_conflicts_with_subcommands = true, disable_help_subcommand = true)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// List the chapters and the command that runs each
    #[arg(long, conflicts_with_all = ["ids", "gpu_ids", "exercises"])]
    list: bool,
    /// Print every chapter's id, one per line
    #[arg(long, conflicts_with_all = ["gpu_ids", "exercises"])]
    ids: bool,
    /// Print the id of every chapter with an "On this GPU" section, one per line
    #[arg(long, conflicts_with = "exercises")]
    gpu_ids: bool,
    /// Print every lab exercise as its chapter's id and its own, one per line
    #[arg(long)]
    exercises: bool,
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
    std::process::exit(cli::finish(run()))
}

/// The command; `Ok` is the exit code.
fn run() -> Result<i32, cli::Exit> {
    let command = Args::command().after_help(chapter_list());
    let args = command.try_get_matches().and_then(|m| Args::from_arg_matches(&m))?;
    match &args.command {
        Some(Command::Grade(grade)) => match ktrav_grade::grade(grade, &catalogue()) {
            Ok(code) => Ok(code),
            Err(ktrav_grade::GradeError::Usage(message)) => Err(cli::Exit::Usage(message)),
            Err(e) => {
                eprintln!("error: {e}");
                Ok(e.code())
            }
        },
        Some(Command::Record { file }) => record(file),
        Some(Command::Handout { dir }) => {
            let written = cli::usage(appendix_k::handout::write(dir))?;
            cli::print(&format!("wrote {} starters into {}: {}\n", written.len(), dir.display(), written.join(", ")))?;
            Ok(0)
        }
        Some(Command::ExpectColumns { files }) => {
            cli::print(&cli::usage(appendix_k::room::expect_columns(files))?)?;
            Ok(0)
        }
        Some(Command::Doctor) => {
            cli::print(&ktrav_gpu::doctor::report())?;
            Ok(0)
        }
        None if args.list => {
            cli::print(&format!("{}\n", chapter_list()))?;
            Ok(0)
        }
        None if args.ids || args.gpu_ids => {
            for ch in CHAPTERS.iter().filter(|ch| args.ids || ch.gpu.is_some()) {
                cli::print(&format!("{}\n", ch.id))?;
            }
            Ok(0)
        }
        None if args.exercises => {
            for ch in CHAPTERS {
                for ex in ch.exercises {
                    cli::print(&format!("{} {}\n", ch.id, ex.id))?;
                }
            }
            Ok(0)
        }
        None => {
            for (i, ch) in CHAPTERS.iter().enumerate() {
                if i > 0 {
                    cli::print("\n")?;
                }
                cli::print(&ch.report_text())?;
            }
            Ok(0)
        }
    }
}

/// `record FILE`: every chapter's GPU section, then the record of what they
/// measured, written only when every section passed. The exit code: 0
/// written, 1 a section failed, 3 no GPU; bad input is [`cli::Exit::Usage`].
fn record(file: &std::path::Path) -> Result<i32, cli::Exit> {
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !folder.is_dir() {
        return Err(cli::Exit::Usage(format!("cannot write {}: no folder {}", file.display(), folder.display())));
    }
    let gpu = match ktrav_gpu::open() {
        Ok(g) => g,
        Err(why) => {
            eprintln!("error: nothing recorded: no GPU ({why})");
            return Ok(ktrav::lab::COULD_NOT_CHECK);
        }
    };
    let mut sections = Vec::new();
    let mut failed = Vec::new();
    for ch in CHAPTERS {
        let Some(gpu) = ch.gpu else { continue };
        eprintln!("{}: its GPU section", ch.heading());
        match gpu.section(ch) {
            ktrav::SectionOutcome::Ran { failures: 0, record, .. } => sections.push(record),
            other => {
                cli::print(&format!("{}: FAILED\n{}", ch.heading(), ktrav_term::report::plain(&other.text())))?;
                failed.push(ch.id);
            }
        }
    }
    if !failed.is_empty() {
        eprintln!("error: nothing recorded: the GPU sections of {} did not pass", failed.join(", "));
        return Ok(1);
    }
    let large = if std::env::var_os(ktrav::section::LARGE_ENV).is_some() { "KTRAV_GPU_LARGE=1 " } else { "" };
    let run = ktrav_gpu::record::run_on(&gpu, &format!("{large}appendix_k record FILE"));
    let record = ktrav::measured::Record { run, sections };
    if let Err(e) = std::fs::write(file, record.to_json()) {
        eprintln!("error: cannot write {}: {e}", file.display());
        return Ok(1);
    }
    cli::print(&format!("record written to {}\n", file.display()))?;
    Ok(0)
}
