//! `cargo run -p k5_layout_interop`: prints the K.5 worked example, the twin
//! kernels and the cuBLAS-convention GEMM, then (on a GPU) launches the
//! addition kernels and calls cuBLAS itself. `--rows/--cols` rerun the layout
//! part on another shape, `--m/--n/--k` the GEMM part.

use clap::Parser;
use k5_layout_interop::{gemm_report, layout_report, shown_outputs, GEMM_K, GEMM_M, GEMM_N, SOURCE_COLS, SOURCE_ROWS};
use ktrav::cli::{self, size_in};

#[derive(Parser, Debug)]
#[command(allow_negative_numbers = true, about = "Appendix K.5: row-major kernels meeting column-major data, and cuBLAS conventions")]
struct Args {
    /// Rows of the matrix for the strides, addresses and conversions (default 4)
    #[arg(long, value_parser = size_in(1 << 12))]
    rows: Option<u64>,
    /// Columns of that matrix (default 6)
    #[arg(long, value_parser = size_in(1 << 12))]
    cols: Option<u64>,
    /// GEMM: rows of A and C (default 2)
    #[arg(long, value_parser = size_in(16))]
    m: Option<u64>,
    /// GEMM: columns of B and C (default 4)
    #[arg(long, value_parser = size_in(16))]
    n: Option<u64>,
    /// GEMM: columns of A, rows of B (default 3)
    #[arg(long, value_parser = size_in(16))]
    k: Option<u64>,
}

fn main() {
    let args: Args = cli::parse_or_exit();
    let layout = args.rows.is_some() || args.cols.is_some();
    let gemm = args.m.is_some() || args.n.is_some() || args.k.is_some();
    if layout {
        anstream::print!("{}", layout_report(args.rows.unwrap_or(SOURCE_ROWS), args.cols.unwrap_or(SOURCE_COLS)));
    }
    if gemm {
        if layout {
            println!();
        }
        let (m, n, k) = (args.m.unwrap_or(GEMM_M), args.n.unwrap_or(GEMM_N), args.k.unwrap_or(GEMM_K));
        anstream::print!("{}", gemm_report(m, n, k));
    }
    if !layout && !gemm {
        for (i, (_, text)) in shown_outputs().iter().enumerate() {
            if i > 0 {
                println!();
            }
            anstream::print!("{text}");
        }
        ktrav::gpu::print_section(k5_layout_interop::gpu::checks);
    }
}
