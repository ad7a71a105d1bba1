//! `cargo run -p k5_layout_interop`: prints the K.5 worked example, the twin
//! kernels and the cuBLAS-convention GEMM, then (on a GPU) launches the
//! addition kernels and calls cuBLAS itself. `--rows/--cols` rerun the layout
//! part on another shape, `--m/--n/--k` the GEMM part; `--gpu` with
//! `--rows`/`--cols` runs every addition kernel and version on the GPU at
//! that shape.
//!
//! `check FILE.cu` checks a student's own kernel against the chapter's
//! lab exercise (`ktrav::lab`); `sim-check EXERCISE` checks the student's
//! own Rust twin of it on the simulator, with no GPU.

use clap::Parser;
use k5_layout_interop::{gemm_report, layout_report, CHAPTER, MAX_LAYOUT_ELEMENTS};
use ktrav::Shape;
use ktrav_term::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true,
    allow_negative_numbers = true,
    about = "Appendix K.5: column-major data, the thread mapping it needs, and cuBLAS's conventions"
)]
struct Args {
    #[command(subcommand)]
    lab: Option<ktrav_gpu::commands::Lab>,
    #[command(flatten)]
    layout: Option<Layout>,
    #[command(flatten)]
    gemm: Option<Gemm>,
    /// Run every addition kernel and version on the GPU at the --rows/--cols shape, checked against a + b, then timed beside a device copy
    #[arg(long, requires = "layout", conflicts_with_all = ["m", "n", "k"])]
    gpu: bool,
}

/// Either of these reruns the strides, walks and conversions on another shape.
#[derive(clap::Args, Debug)]
#[group(id = "layout", multiple = true)]
struct Layout {
    /// Rows of the matrix for the strides, addresses and conversions (at most 4096)
    #[arg(long, default_value_t = 4, value_parser = size_in(1 << 12))]
    rows: u64,
    /// Columns of that matrix (at most 4096; rows times columns at most 4194304)
    #[arg(long, default_value_t = 6, value_parser = size_in(1 << 12))]
    cols: u64,
}

/// Any of these reruns the cuBLAS-convention GEMM on another shape.
#[derive(clap::Args, Debug)]
#[group(id = "gemm", multiple = true)]
struct Gemm {
    /// GEMM: rows of A and C (at most 16)
    #[arg(long, default_value_t = 2, value_parser = size_in(16))]
    m: u64,
    /// GEMM: columns of B and C (at most 16)
    #[arg(long, default_value_t = 4, value_parser = size_in(16))]
    n: u64,
    /// GEMM: columns of A, rows of B (at most 16)
    #[arg(long, default_value_t = 3, value_parser = size_in(16))]
    k: u64,
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
    if args.layout.is_none() && args.gemm.is_none() {
        return CHAPTER.run_default();
    }
    let shape = args.layout.map(|l| Shape::new(l.rows, l.cols));
    if let (true, Some(shape)) = (args.gpu, shape) {
        return CHAPTER.run_at_shape(shape);
    }
    if let Some(shape) = shape {
        cli::check_limit("matrix elements", shape.checked_elements(), MAX_LAYOUT_ELEMENTS)?;
    }
    let mut parts = Vec::new();
    if let Some(shape) = shape {
        parts.push(layout_report(shape));
    }
    if let Some(g) = args.gemm {
        parts.push(gemm_report(g.m, g.n, g.k));
    }
    cli::print(&parts.join("\n"))?;
    Ok(0)
}
