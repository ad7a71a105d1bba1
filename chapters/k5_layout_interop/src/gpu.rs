//! K.5 on a real GPU: the twin kernels (and the two mismatched pairings of
//! the warp table) against the simulator and the plain sum, timed side by
//! side; then cuBLAS's `sgemm` itself on row-major buffers, through the
//! operand swap and through the two traps, against the chapter's host
//! reference of each call.

use crate::{
    add_mapped, convert_logical, gemm_operands, kernel_name, launch_mapped, layout_marker, reference_product,
    sgemm, Axis, Mapping, Op, GEMM_K, GEMM_M, GEMM_N, SOURCE_COLS, SOURCE_ROWS, WARP_BLOCK, WARP_COLS, WARP_ROWS,
};
use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaFunction, CudaSlice};
use ktrav::gpu::{compare, compare_with, test_value, Gpu, GpuSection, PushKernelArg};
use ktrav::{Dim2, Matrix, StorageOrder};
use std::panic::{catch_unwind, AssertUnwindSafe};

const FILE: &str = "k5_layout_interop";

/// The four pairings of layout and mapping, twins first.
pub const PAIRINGS: [(StorageOrder, Axis); 4] = [
    (StorageOrder::RowMajor, Axis::Col),
    (StorageOrder::ColMajor, Axis::Row),
    (StorageOrder::RowMajor, Axis::Row),
    (StorageOrder::ColMajor, Axis::Col),
];

/// The large shape of the addition: odd on both axes, 33.6 M elements.
pub const LARGE_ADD: (u64, u64) = (4097, 8191);
/// The block of the large addition and its timing (K.3's 32x8).
pub const LARGE_BLOCK: Dim2 = Dim2::new(32, 8);
/// The large GEMM: every dimension different, too large for a silent coincidence.
pub const LARGE_GEMM: (usize, usize, usize) = (1000, 700, 500);
/// Relative Frobenius error, computed in f64, below which a float32 GEMM of
/// the large shape counts as equal to its f64 reference. A float32 product
/// summing 500 terms of size about 1 is good to about 1e-6 relative; TF32 or
/// a wrong element would be far above 1e-5.
pub const GEMM_TOLERANCE: f64 = 1e-5;

/// The kernel of a pairing, loaded from the embedded fatbin.
fn kernel(gpu: &Gpu, pairing: (StorageOrder, Axis)) -> Result<CudaFunction, String> {
    gpu.function(FILE, kernel_name(pairing.0, Mapping { x_walks: pairing.1 }))
}

/// Runs one of the four kernels into a freshly poisoned output.
#[allow(clippy::too_many_arguments)]
fn add_on_gpu(
    gpu: &Gpu,
    f: &CudaFunction,
    pairing: (StorageOrder, Axis),
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
    rows: u64,
    cols: u64,
    block: Dim2,
) -> Result<f32, String> {
    let mapping = Mapping { x_walks: pairing.1 };
    let cfg = launch_mapped(mapping, rows, cols, block).map_err(|e| e.to_string())?;
    gpu.poison(out)?;
    let mut args = gpu.args(f);
    args.arg(&mut *out).arg(a).arg(b).arg(&rows).arg(&cols);
    gpu.launch(args, &cfg, 0)
}

fn describe(pairing: (StorageOrder, Axis)) -> String {
    let (order, x_walks) = pairing;
    format!("{} ({order} data, x walks {x_walks}s)", kernel_name(order, Mapping { x_walks }))
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<(), String> {
    twins(gpu, sec)?;
    cublas(gpu, sec)
}

/// The four addition kernels: simulated shapes, a large shape, and timing.
fn twins(gpu: &Gpu, sec: &mut GpuSection) -> Result<(), String> {
    sec.line("the addition under all four pairings of layout and mapping, each against the simulator:");
    for (rows, cols, block) in [(SOURCE_ROWS, SOURCE_COLS, Dim2::new(4, 4)), (WARP_ROWS, WARP_COLS, WARP_BLOCK)] {
        let a_rm = Matrix::from_fn(rows, cols, StorageOrder::RowMajor, layout_marker);
        let b_rm = Matrix::from_fn(rows, cols, StorageOrder::RowMajor, |r, c| (r + 2 * c) as f32);
        for pairing in PAIRINGS {
            let (a, b) = (convert_logical(&a_rm, pairing.0), convert_logical(&b_rm, pairing.0));
            let mapping = Mapping { x_walks: pairing.1 };
            let sim = add_mapped(a.as_slice(), b.as_slice(), pairing.0, mapping, rows, cols, block, f32::NAN);
            let (dev_a, dev_b) = (gpu.upload(a.as_slice())?, gpu.upload(b.as_slice())?);
            let mut out = gpu.poisoned::<f32>(sim.len())?;
            let ms = add_on_gpu(gpu, &kernel(gpu, pairing)?, pairing, &dev_a, &dev_b, &mut out, rows, cols, block)?;
            let label = format!("{rows}x{cols}, {block} blocks, {}", describe(pairing));
            sec.check(&label, &compare(&gpu.download(&out)?, &sim), Some(ms));
        }
    }

    // Large: a(r,c) and b(r,c) are test values of the row-major index, laid
    // out in each layout; every output offset must hold a(r,c) + b(r,c) of
    // the (r,c) that offset means in that layout.
    let (rows, cols) = LARGE_ADD;
    let n = rows * cols;
    let a_of = move |r: u64, c: u64| test_value(r * cols + c);
    let b_of = move |r: u64, c: u64| test_value(n + r * cols + c);
    let sum_at = move |order: StorageOrder, j: u64| {
        let (r, c) = match order {
            StorageOrder::RowMajor => (j / cols, j % cols),
            StorageOrder::ColMajor => (j % rows, j / rows),
        };
        a_of(r, c) + b_of(r, c)
    };
    let build = |order: StorageOrder, f: &dyn Fn(u64, u64) -> f32| -> Vec<f32> {
        (0..n)
            .map(|j| match order {
                StorageOrder::RowMajor => f(j / cols, j % cols),
                StorageOrder::ColMajor => f(j % rows, j / rows),
            })
            .collect()
    };
    let mut inputs = Vec::new();
    for order in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
        inputs.push((order, gpu.upload(&build(order, &a_of))?, gpu.upload(&build(order, &b_of))?));
    }
    let mut out = gpu.poisoned::<f32>(n as usize)?;
    sec.line(format!("{rows}x{cols}, {LARGE_BLOCK} blocks, each pairing against a(r,c) + b(r,c) at the offset of (r,c):"));
    for pairing in PAIRINGS {
        let (_, a, b) = inputs.iter().find(|(o, _, _)| *o == pairing.0).expect("both layouts uploaded");
        let ms = add_on_gpu(gpu, &kernel(gpu, pairing)?, pairing, a, b, &mut out, rows, cols, LARGE_BLOCK)?;
        let agreement = compare_with(&gpu.download(&out)?, |j| sum_at(pairing.0, j as u64));
        sec.check(&format!("  {}", describe(pairing)), &agreement, Some(ms));
    }

    // Timing, printed and never asserted.
    const REPEATS: usize = 20;
    let bytes = 3 * n * 4; // two reads and one write per element
    let table = sec.bandwidth(gpu, &format!("{rows}x{cols} floats, {LARGE_BLOCK} blocks"), (n * 4) as usize, REPEATS)?;
    for pairing in PAIRINGS {
        let (_, a, b) = inputs.iter().find(|(o, _, _)| *o == pairing.0).expect("both layouts uploaded");
        let f = kernel(gpu, pairing)?;
        table.row(sec, &describe(pairing), bytes, || add_on_gpu(gpu, &f, pairing, a, b, &mut out, rows, cols, LARGE_BLOCK))?;
    }
    Ok(())
}

/// One `sgemm` call as the chapter writes it: `first` is the buffer passed
/// as cuBLAS's A, `second` the one passed as its B.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    pub name: &'static str,
    pub transa: Op,
    pub transb: Op,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub first: &'a [f32],
    pub lda: usize,
    pub second: &'a [f32],
    pub ldb: usize,
    pub ldc: usize,
}

impl Call<'_> {
    /// Elements of the C buffer: `n` columns `ldc` apart.
    pub fn c_len(&self) -> usize {
        self.n * self.ldc
    }

    /// Whether every operand fits its buffer, so the call reads and writes
    /// only inside its allocations.
    pub fn fits(&self) -> bool {
        let needed = |rows: usize, cols: usize, ld: usize| if rows == 0 || cols == 0 { 0 } else { (cols - 1) * ld + rows };
        let (ar, ac) = if self.transa == Op::N { (self.m, self.k) } else { (self.k, self.m) };
        let (br, bc) = if self.transb == Op::N { (self.k, self.n) } else { (self.n, self.k) };
        self.lda >= ar.max(1)
            && self.ldb >= br.max(1)
            && self.ldc >= self.m.max(1)
            && needed(ar, ac, self.lda) <= self.first.len()
            && needed(br, bc, self.ldb) <= self.second.len()
    }

    /// The chapter's host reference of this very call (float32), on a C
    /// buffer that starts as `c_init` everywhere.
    pub fn host(&self, c_init: f32) -> Vec<f32> {
        let mut c = vec![c_init; self.c_len()];
        sgemm(self.transa, self.transb, self.m, self.n, self.k, 1.0, self.first, self.lda, self.second, self.ldb, 0.0, &mut c, self.ldc)
            .expect("only calls that fit are made");
        c
    }

    /// The same call computed in f64: the reference for shapes where float32
    /// rounding makes an exact comparison meaningless.
    pub fn host_f64(&self) -> Vec<f64> {
        let (lda, ldb, ldc) = (self.lda, self.ldb, self.ldc);
        let op_a = |i: usize, l: usize| f64::from(if self.transa == Op::N { self.first[i + l * lda] } else { self.first[l + i * lda] });
        let op_b = |l: usize, j: usize| f64::from(if self.transb == Op::N { self.second[l + j * ldb] } else { self.second[j + l * ldb] });
        let mut c = vec![0.0f64; self.c_len()];
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let cols_per = self.n.div_ceil(threads).max(1);
        std::thread::scope(|s| {
            for (t, part) in c.chunks_mut(cols_per * ldc).enumerate() {
                let (op_a, op_b) = (&op_a, &op_b);
                s.spawn(move || {
                    for (jj, col) in part.chunks_mut(ldc).enumerate() {
                        let j = t * cols_per + jj;
                        for (i, cell) in col.iter_mut().take(self.m).enumerate() {
                            *cell = (0..self.k).map(|l| op_a(i, l) * op_b(l, j)).sum();
                        }
                    }
                });
            }
        });
        c
    }

    /// How the call is written, as in the chapter's report.
    pub fn signature(&self, first: &str, second: &str) -> String {
        let t = |op: Op| if op == Op::N { "N" } else { "T" };
        format!(
            "sgemm({}, {}, m={}, n={}, k={}, {first}, ld={}, {second}, ld={}, C, ldc={})",
            t(self.transa),
            t(self.transb),
            self.m,
            self.n,
            self.k,
            self.lda,
            self.ldb,
            self.ldc
        )
    }
}

/// Opens cuBLAS on the GPU's stream, or says in one line why not. Never
/// panics: cudarc panics when a library or symbol is missing, so that is
/// caught too.
fn open_blas(gpu: &Gpu) -> Result<CudaBlas, String> {
    // SAFETY: only tries to dlopen the library by its usual names.
    if !unsafe { cudarc::cublas::sys::is_culib_present() } {
        return Err("no cuBLAS library (libcublas with libcublasLt) on this machine".into());
    }
    match catch_unwind(AssertUnwindSafe(|| CudaBlas::new(gpu.stream.clone()))) {
        Ok(Ok(blas)) => Ok(blas),
        Ok(Err(e)) => Err(format!("cuBLAS did not start ({e})")),
        Err(_) => Err("the cuBLAS library could not be loaded".into()),
    }
}

/// Makes `call` on the GPU into a freshly poisoned C and returns C.
fn gemm_on_gpu(gpu: &Gpu, blas: &CudaBlas, call: &Call) -> Result<Vec<f32>, String> {
    if !call.fits() {
        return Err(format!("{} would read or write past its buffers; not launched", call.name));
    }
    let int = |x: usize| i32::try_from(x).map_err(|_| format!("{x} does not fit cuBLAS's int"));
    let op = |o: Op| if o == Op::N { cublasOperation_t::CUBLAS_OP_N } else { cublasOperation_t::CUBLAS_OP_T };
    let cfg = GemmConfig {
        transa: op(call.transa),
        transb: op(call.transb),
        m: int(call.m)?,
        n: int(call.n)?,
        k: int(call.k)?,
        alpha: 1.0f32,
        lda: int(call.lda)?,
        ldb: int(call.ldb)?,
        beta: 0.0f32, // C is not read: its poison must survive only where nothing is written
        ldc: int(call.ldc)?,
    };
    let (first, second) = (gpu.upload(call.first)?, gpu.upload(call.second)?);
    let mut c = gpu.poisoned::<f32>(call.c_len())?;
    // SAFETY: `fits` checked every operand against its buffer's length.
    let status = catch_unwind(AssertUnwindSafe(|| unsafe { blas.gemm(cfg, &first, &second, &mut c) }));
    match status {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("cublasSgemm failed ({e})")),
        Err(_) => return Err("cublasSgemm could not be called (missing symbol)".into()),
    }
    gpu.stream.synchronize().map_err(|e| format!("cublasSgemm failed during execution ({e})"))?;
    gpu.download(&c)
}

/// `sqrt(sum (got - want)^2 / sum want^2)` over the `m x n` block of two
/// column-major buffers with leading dimension `ldc`, in f64.
pub fn relative_error(got: &[f32], want: &[f64], m: usize, n: usize, ldc: usize) -> f64 {
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for j in 0..n {
        for i in 0..m {
            let (g, w) = (f64::from(got[i + j * ldc]), want[i + j * ldc]);
            num += (g - w) * (g - w);
            den += w * w;
        }
    }
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}

/// The chapter's calls on row-major `a` (m x k) and `b` (k x n).
pub fn calls<'a>(m: usize, n: usize, k: usize, a: &'a [f32], b: &'a [f32]) -> [Call<'a>; 4] {
    let nn = |name, mm, nn_, first, lda, second, ldb, ldc| Call {
        name,
        transa: Op::N,
        transb: Op::N,
        m: mm,
        n: nn_,
        k,
        first,
        lda,
        second,
        ldb,
        ldc,
    };
    [
        nn("as-is", m, n, a, m, b, k, m),
        Call { transa: Op::T, transb: Op::T, ..nn("transposed", m, n, a, k, b, n, m) },
        nn("fix", n, m, b, n, a, k, n),
        nn("fix into rows n+2 wide", n, m, b, n, a, k, n + 2),
    ]
}

/// cuBLAS itself, if it is installed.
fn cublas(gpu: &Gpu, sec: &mut GpuSection) -> Result<(), String> {
    let blas = match open_blas(gpu) {
        Ok(blas) => blas,
        Err(reason) => {
            sec.line(format!("cuBLAS part skipped: {reason}."));
            return Ok(());
        }
    };
    sec.line("cuBLAS sgemm on row-major buffers (alpha 1, beta 0, C poisoned first):");
    for (m, n, k) in [(GEMM_M, GEMM_N, GEMM_K), (5, 2, 7)] {
        exact_case(gpu, &blas, sec, m as usize, n as usize, k as usize)?;
    }
    large_case(gpu, &blas, sec)
}

/// Small integer-valued operands: every sum is exact in float32, so every
/// result must equal its host reference bit for bit.
fn exact_case(gpu: &Gpu, blas: &CudaBlas, sec: &mut GpuSection, m: usize, n: usize, k: usize) -> Result<(), String> {
    let (a, b) = gemm_operands(m as u64, n as u64, k as u64);
    let want = reference_product(&a, &b);
    sec.line(format!("  A {m}x{k}, B {k}x{n} (the chapter's integer operands; exact comparison):"));
    let poison = f32::from_bits(ktrav::gpu::POISON_WORD);
    for call in calls(m, n, k, a.as_slice(), b.as_slice()) {
        let (first, second) = if call.name.starts_with("fix") { ("B", "A") } else { ("A", "B") };
        let got = gemm_on_gpu(gpu, blas, &call)?;
        // The host model runs on a poisoned C as well, so the margin of the
        // wide call must stay unwritten on both.
        let label = format!("    {:<10} {}: GPU against the host model of the same call", call.name, call.signature(first, second));
        sec.check(&label, &compare(&got, &call.host(poison)), None);
        match call.name {
            "as-is" => {
                let right = (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).filter(|&(i, j)| got[i * n + j] == want.get(i as u64, j as u64)).count();
                sec.line(format!("      C read row-major: {right} of {} entries of A*B right (a trap, wrong on purpose)", m * n));
            }
            "transposed" => {
                let t_ok = (0..n).all(|r| (0..m).all(|c| got[r * m + c] == want.get(c as u64, r as u64)));
                sec.verdict("      C read row-major as nxm is exactly (A*B)^T", &format!("{n}x{m}"), t_ok, None);
            }
            _ => {
                let ldc = call.ldc;
                let ok = (0..m).all(|i| (0..n).all(|j| got[i * ldc + j] == want.get(i as u64, j as u64)));
                sec.verdict("      C read row-major equals A*B", &format!("{m}x{n}, rows {ldc} apart"), ok, None);
            }
        }
    }
    let mut c = vec![0.0; m * n];
    if let Err(e) = sgemm(Op::N, Op::N, m, n, k, 1.0, b.as_slice(), n, a.as_slice(), k, 0.0, &mut c, m) {
        sec.line(format!("    half fix not launched: the host reference refuses it ({e}); on the GPU it would read past an allocation"));
    }
    Ok(())
}

/// A large product of values in [-1, 1): compared in f64 with a relative
/// tolerance, since float32 rounding depends on the summation order.
fn large_case(gpu: &Gpu, blas: &CudaBlas, sec: &mut GpuSection) -> Result<(), String> {
    let (m, n, k) = LARGE_GEMM;
    let value = |i: u64| test_value(i) / (1u32 << 23) as f32 - 1.0;
    let a: Vec<f32> = (0..(m * k) as u64).map(value).collect();
    let b: Vec<f32> = (0..(k * n) as u64).map(|i| value(i + (m * k) as u64)).collect();
    sec.line(format!(
        "  A {m}x{k}, B {k}x{n}, values in [-1, 1): relative error ||C - ref|| / ||ref|| in f64, below {GEMM_TOLERANCE:e}:"
    ));
    // A*B in f64, row-major: as a column-major n x m matrix, the fix's output.
    let [as_is, transposed, fix, _] = calls(m, n, k, &a, &b);
    let product = fix.host_f64();
    for call in [as_is, transposed, fix] {
        let (first, second) = if call.name == "fix" { ("B", "A") } else { ("A", "B") };
        let got = gemm_on_gpu(gpu, blas, &call)?;
        let model = if call.name == "fix" { product.clone() } else { call.host_f64() };
        let err = relative_error(&got, &model, call.m, call.n, call.ldc);
        let against = if call.name == "fix" { "A*B" } else { "the host model of the same call" };
        sec.verdict(
            &format!("    {:<10} {}", call.name, call.signature(first, second)),
            &format!("against {against}: relative error {err:.2e}"),
            err < GEMM_TOLERANCE,
            None,
        );
        if call.name == "as-is" {
            // Read row-major m x n, compare with A*B (row-major = the fix's n x m column-major).
            let err = relative_error(&got, &product, n, m, n);
            sec.line(format!("      read row-major, its distance from A*B: {err:.2} (a trap, wrong on purpose)"));
        }
        if call.name == "transposed" {
            // Column-major m x n C holds A*B: as a column-major matrix it is A*B itself.
            let expect: Vec<f64> = (0..m * n).map(|idx| product[(idx / m) + (idx % m) * n]).collect();
            let err = relative_error(&got, &expect, m, n, m);
            sec.verdict("      its buffer read row-major as nxm is (A*B)^T", &format!("relative error {err:.2e}"), err < GEMM_TOLERANCE, None);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f64 model of every call agrees with the chapter's float32 host
    /// reference where both are exact, and every call fits its buffers.
    #[test]
    fn f64_model_matches_the_host_reference() {
        for (m, n, k) in [(2, 4, 3), (5, 2, 7), (3, 3, 3), (1, 6, 2)] {
            let (a, b) = gemm_operands(m as u64, n as u64, k as u64);
            for call in calls(m, n, k, a.as_slice(), b.as_slice()) {
                assert!(call.fits(), "{} {m}x{n}x{k}", call.name);
                let host = call.host(0.0);
                let f64s = call.host_f64();
                assert_eq!(host.iter().map(|&x| f64::from(x)).collect::<Vec<_>>(), f64s, "{}", call.name);
                assert_eq!(relative_error(&host, &f64s, call.m, call.n, call.ldc), 0.0);
            }
        }
    }

    #[test]
    fn fix_is_the_product_and_the_half_fix_does_not_fit() {
        let (m, n, k) = (2usize, 4usize, 3usize);
        let (a, b) = gemm_operands(m as u64, n as u64, k as u64);
        let want = reference_product(&a, &b);
        let [_, _, fix, wide] = calls(m, n, k, a.as_slice(), b.as_slice());
        assert_eq!(fix.host(0.0), want.as_slice());
        let w = wide.host(f32::NAN);
        assert!((0..m).all(|i| (0..n).all(|j| w[i * (n + 2) + j] == want.get(i as u64, j as u64))));
        assert!((0..m).all(|i| w[i * (n + 2) + n].is_nan()));
        let half = Call { name: "half fix", m, n, first: b.as_slice(), lda: n, second: a.as_slice(), ldb: k, ldc: m, ..fix };
        assert!(!half.fits());
    }

    #[test]
    fn large_shapes_are_launchable() {
        let (rows, cols) = LARGE_ADD;
        for pairing in PAIRINGS {
            assert!(launch_mapped(Mapping { x_walks: pairing.1 }, rows, cols, LARGE_BLOCK).is_ok());
        }
        let (m, n, k) = LARGE_GEMM;
        let (a, b) = (vec![0.0; m * k], vec![0.0; k * n]);
        assert!(calls(m, n, k, &a, &b).iter().all(Call::fits));
    }
}
