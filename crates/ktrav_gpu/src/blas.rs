//! cuBLAS's single-precision matrix product, reached through the runner so
//! that chapters never touch cudarc. cuBLAS is column-major, like the
//! Fortran BLAS it mirrors: K.5 is about exactly that.

use crate::libs::{self, Lookup};
use crate::probe::Unavailable;
use crate::runner::{DeviceBuffer, Gpu};
use anyhow::{anyhow, bail, Context, Result};
use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Whether cuBLAS reads an operand as stored or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transpose {
    /// `CUBLAS_OP_N`: as stored.
    No,
    /// `CUBLAS_OP_T`: transposed.
    Yes,
}

/// One `cublasSgemm` call: `C = alpha * op(A) * op(B) + beta * C`, every
/// matrix column-major with its leading dimension.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sgemm {
    pub transa: Transpose,
    pub transb: Transpose,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub alpha: f32,
    pub lda: usize,
    pub ldb: usize,
    pub beta: f32,
    pub ldc: usize,
}

/// An open cuBLAS handle on the runner's stream.
pub struct Blas {
    handle: CudaBlas,
    /// Where `libcublas` was found.
    pub found: Lookup,
}

impl Gpu {
    /// Opens cuBLAS, or says in one line why not and where it looked.
    /// Never panics: cudarc panics when a library or symbol is missing, so
    /// that is caught too.
    pub fn blas(&self) -> std::result::Result<Blas, Unavailable> {
        let found = libs::load("libcublas.so.13");
        let lt = libs::load("libcublasLt.so.13");
        if !found.found() {
            return Err(Unavailable(found.describe()));
        }
        // SAFETY: only tries to dlopen the library by its usual names.
        if !unsafe { cudarc::cublas::sys::is_culib_present() } {
            return Err(Unavailable(format!(
                "libcublas found as {} but did not load ({})",
                found.describe(),
                lt.describe()
            )));
        }
        match catch_unwind(AssertUnwindSafe(|| CudaBlas::new(self.stream().clone()))) {
            Ok(Ok(handle)) => Ok(Blas { handle, found }),
            Ok(Err(e)) => Err(Unavailable(format!("cuBLAS did not start ({e})"))),
            Err(_) => Err(Unavailable(format!("the cuBLAS library at {} could not be loaded", found.describe()))),
        }
    }
}

impl Blas {
    /// Queues one sgemm on the runner's stream and waits for it; each
    /// operand's length is checked against what the call will touch first.
    pub fn sgemm(
        &self,
        gpu: &Gpu,
        call: &Sgemm,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        let (ra, ca) = if call.transa == Transpose::No { (call.m, call.k) } else { (call.k, call.m) };
        let (rb, cb) = if call.transb == Transpose::No { (call.k, call.n) } else { (call.n, call.k) };
        for (name, rows, cols, ld, len) in [
            ("A", ra, ca, call.lda, a.len()),
            ("B", rb, cb, call.ldb, b.len()),
            ("C", call.m, call.n, call.ldc, c.len()),
        ] {
            if ld < rows.max(1) || (cols > 0 && (cols - 1) * ld + rows > len) {
                bail!("sgemm would read or write past {name} ({rows}x{cols}, ld {ld}, {len} elements); not called");
            }
        }
        let int = |x: usize| i32::try_from(x).map_err(|_| anyhow!("{x} does not fit cuBLAS's int"));
        let op = |t| if t == Transpose::No { cublasOperation_t::CUBLAS_OP_N } else { cublasOperation_t::CUBLAS_OP_T };
        let cfg = GemmConfig {
            transa: op(call.transa),
            transb: op(call.transb),
            m: int(call.m)?,
            n: int(call.n)?,
            k: int(call.k)?,
            alpha: call.alpha,
            lda: int(call.lda)?,
            ldb: int(call.ldb)?,
            beta: call.beta,
            ldc: int(call.ldc)?,
        };
        // SAFETY: every operand was checked against its buffer's length.
        let status = catch_unwind(AssertUnwindSafe(|| unsafe { self.handle.gemm(cfg, a, b, c) }));
        match status {
            Ok(Ok(())) => {}
            Ok(Err(e)) => bail!("cublasSgemm failed ({e})"),
            Err(_) => bail!("cublasSgemm could not be called (missing symbol)"),
        }
        gpu.synchronize().context("cublasSgemm failed during execution")
    }
}
