//! K.5 on a real GPU: the twin kernels (and the two mismatched pairings of
//! the warp table) against the simulator and the plain sum, timed side by
//! side; then cuBLAS's `sgemm` itself on row-major buffers, through the
//! operand swap and through the two traps, against the chapter's host
//! reference of each call.

use crate::{
    add_mapped, addend, check, convert_logical, gemm_operands, launch_plan, layout_marker, reference_product, sgemm,
    GemmError, Op, Pairing, Slot, GEMM_K, GEMM_M, GEMM_N, PAIRINGS, SOURCE_SHAPE, WARP_BLOCK, WARP_SHAPE,
};
use anyhow::{Context, Result};
use ktrav::chapter::NotOnTheLadder;
use ktrav::compare::{compare, compare_with, test_value};
use ktrav::ladder;
use ktrav::{BlockOrder, Dim2, Matrix, Shape, StorageOrder};
use ktrav_gpu::blas::{Blas, Sgemm, Transpose};
use ktrav_gpu::ladder::{Expected, Io, Ladder, Row, Yardstick};
use ktrav_gpu::section::{small_shapes, Role};
use ktrav_gpu::{median_ms, Args, DeviceBuffer, Gpu, GpuSection, Kernel, PushKernelArg};

const FILE: &str = crate::CHAPTER.id;

/// The large shape of the addition: odd on both axes, 33.6 M elements.
pub const LARGE_ADD: Shape = Shape::new(4097, 8191);
/// The block of the large addition and its timing (K.3's 32x8).
pub const LARGE_BLOCK: Dim2 = Dim2::new(32, 8);
/// The large GEMM: every dimension different, too large for a silent coincidence.
pub const LARGE_GEMM: (usize, usize, usize) = (1000, 700, 500);
/// Relative Frobenius error, computed in f64, below which a float32 GEMM of
/// the large shape counts as equal to its f64 reference. A float32 product
/// summing 500 terms of size about 1 is good to about 1e-6 relative; TF32 or
/// a wrong element would be far above 1e-5.
pub const GEMM_TOLERANCE: f64 = 1e-5;

/// Runs one of the four kernels, launched by the chapter's launch plan, into
/// a freshly poisoned output.
#[allow(clippy::too_many_arguments)]
fn add_on_gpu(
    gpu: &Gpu,
    f: &Kernel,
    kernel: Pairing,
    a: &DeviceBuffer<f32>,
    b: &DeviceBuffer<f32>,
    out: &mut DeviceBuffer<f32>,
    shape: Shape,
    block: Dim2,
) -> Result<f32> {
    let cfg = launch_plan(kernel, shape, block)
        .with_context(|| format!("no launch of {} with {block} blocks covers {shape}", kernel.kernel_name()))?;
    let (rows, cols) = (shape.rows, shape.cols);
    gpu.poison(out)?;
    let mut args = gpu.args(f);
    args.arg(&mut *out).arg(a).arg(b).arg(&rows).arg(&cols);
    gpu.launch(args, &cfg, 0)
}

fn describe(kernel: Pairing) -> String {
    format!("{} ({} data, x walks {}s)", kernel.kernel_name(), kernel.order, kernel.x_walks)
}

/// The chapter's GPU entry points, held by its [`ktrav::Chapter`]: the
/// whole section or the small-shape mode (`ktrav_gpu::section`), the
/// section at a reader's shape, and where the ladder times the exercises.
pub const ENTRY: ktrav_gpu::GpuEntry = ktrav_gpu::GpuEntry { checks, small, at_shape, ladder_shape };

/// Where the ladder times an exercise's solution (see
/// [`ktrav::GpuHooks::ladder_shape`]).
fn ladder_shape(ex: &ktrav::Exercise) -> Result<Shape, NotOnTheLadder> {
    Err(NotOnTheLadder::OtherKernel {
        section: crate::CHAPTER.section,
        ladder: format!("the row-major add ({})", crate::PAIRINGS[0].kernel_name()),
        exercise: format!("the column-major one ({})", ex.kernel),
    })
}

/// The small-shape mode: the four pairings against the simulator, and every
/// version against a + b, once on each small shape. cuBLAS is not run:
/// its kernels are not the book's.
pub fn small(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    for shape in small_shapes() {
        let a_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, layout_marker);
        let b_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, addend);
        for kernel in PAIRINGS {
            let (a, b) = (convert_logical(&a_rm, kernel.order), convert_logical(&b_rm, kernel.order));
            let sim =
                add_mapped(kernel, a.as_slice(), b.as_slice(), shape, LARGE_BLOCK, &BlockOrder::Forward, f32::NAN);
            let (dev_a, dev_b) = (gpu.upload(a.as_slice())?, gpu.upload(b.as_slice())?);
            let mut out = gpu.poisoned::<f32>(sim.len())?;
            let f = gpu.function(FILE, kernel.kernel_name())?;
            add_on_gpu(gpu, &f, kernel, &dev_a, &dev_b, &mut out, shape, LARGE_BLOCK)?;
            let cfg = launch_plan(kernel, shape, LARGE_BLOCK)?;
            sec.run(kernel.kernel_name(), Role::Teaching, shape, &cfg, &compare(&gpu.download(&out)?, &sim));
        }
    }
    ladder(&summed(), small_shapes()).validate(gpu, sec)
}

/// The section at a reader's shape (`--gpu`): the four pairings (the sum is
/// element by element, so every layout's output is a + b at every offset)
/// and every version, then timed beside a device copy.
/// `Err` when its buffers do not fit in the free device memory.
pub fn at_shape(shape: Shape) -> Result<ktrav::SectionOutcome, ktrav_gpu::section::TooLarge> {
    let expected = summed();
    let ladder = ladder(&expected, vec![shape]);
    ktrav_gpu::section::section_at(
        &crate::CHAPTER,
        shape,
        |sms| ladder.device_bytes(shape, sms),
        |gpu, sec| {
            let mut rows = Vec::new();
            for kernel in PAIRINGS {
                let f = gpu.function(FILE, kernel.kernel_name())?;
                rows.push(Row::new(describe(kernel), move |gpu, io: &mut Io<f32>| {
                    let (a, b) = (&io.inputs[0], &io.inputs[1]);
                    add_on_gpu(gpu, &f, kernel, a, b, &mut io.out, shape, LARGE_BLOCK)
                }));
            }
            ladder.at_shape(gpu, sec, shape, Yardstick::Copy, rows)
        },
    )
}

/// a + b on the host: input 1 starts where input 0 ends, b[i] = test_value(n + i).
fn summed() -> impl Fn(Shape) -> Expected<f32> {
    |shape: Shape| -> Expected<f32> {
        let n = shape.elements();
        Box::new(move |i| test_value(i as u64) + test_value(n + i as u64))
    }
}

/// The chapter's ladder on `shapes`.
fn ladder(expected: &dyn Fn(Shape) -> Expected<f32>, shapes: Vec<Shape>) -> Ladder<'_, f32> {
    Ladder {
        chapter: &crate::CHAPTER,
        push: version_args,
        inputs: 2,
        expected,
        against: "each version on every shape, against a + b on the host (output poisoned first)",
        shapes,
        runs: &[""],
        repeats: 20,
        check_timed: None,
    }
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    twins(gpu, sec)?;
    cublas(gpu, sec)?;
    how_fast(gpu, sec)?;
    sgemm_layouts(gpu, sec)
}

/// The shape the versions are timed on.
pub const LADDER_SHAPE: Shape = Shape::new(8192, 8192);

// ANCHOR: ladder
/// How every version takes its arguments:
/// `add_vN(float* out, const float* a, const float* b, size_t rows, size_t cols)`.
fn version_args<'a>(args: &mut Args<'a>, io: &'a mut Io<f32>) {
    args.arg(&mut io.out).arg(&io.inputs[0]).arg(&io.inputs[1]).arg(&io.rows).arg(&io.cols);
}

/// "How fast can it go": every version on every shape of the ladder
/// against the host's a + b, the output poisoned first; then all of them,
/// and the chapter's row-major pairing, timed beside a copy in one run.
fn how_fast(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    let expected = summed();
    let ladder = ladder(&expected, ladder::shapes(sec.large()));
    ladder.validate(gpu, sec)?;
    let shape = LADDER_SHAPE;
    let teaching = PAIRINGS[0];
    let f = gpu.function(FILE, teaching.kernel_name())?;
    let label = format!("{} ({LARGE_BLOCK} blocks)", teaching.kernel_name());
    let row = Row::new(label, |gpu, io: &mut Io<f32>| {
        let (a, b) = (&io.inputs[0], &io.inputs[1]);
        add_on_gpu(gpu, &f, teaching, a, b, &mut io.out, shape, LARGE_BLOCK)
    });
    ladder.time(gpu, sec, shape, &format!("{shape} floats, how fast can it go"), Yardstick::Copy, vec![row])
}
// ANCHOR_END: ladder

/// The size of the sgemm timing: m = n = k.
pub const SGEMM_SIZE: usize = 8192;

/// K.2's version that transposes A and B to column-major before the sgemm
/// timed against the operand swap.
pub const TRANSPOSE_FIRST: &str = "transpose_v2_64x64_float2";

// ANCHOR: sgemm_layouts
/// cuBLAS's sgemm at 8192^3 three ways, timed in one run: on column-major
/// A and B (the yardstick), on row-major A and B through the operand swap
/// (C^T = B^T A^T: the same call with B first), and by transposing A and B
/// to column-major with K.2's v2 transpose first. Prints TFLOP/s and the
/// share of a computed FP32 peak. Times are printed, never asserted.
fn sgemm_layouts(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    const REPEATS: usize = 7;
    let blas = match gpu.blas() {
        Ok(blas) => blas,
        Err(reason) => {
            sec.skipped("sgemm timing", &reason);
            return Ok(());
        }
    };
    let s = SGEMM_SIZE;
    let n = (s * s) as u64;
    let value = |i: u64| test_value(i) / (1u32 << 23) as f32 - 1.0;
    let a: Vec<f32> = (0..n).map(value).collect();
    let b: Vec<f32> = (0..n).map(|i| value(n + i)).collect();
    let (dev_a, dev_b) = (gpu.upload(&a)?, gpu.upload(&b)?);
    drop((a, b));
    let (mut at, mut bt) = (gpu.poisoned::<f32>(n as usize)?, gpu.poisoned::<f32>(n as usize)?);
    let mut c = gpu.poisoned::<f32>(n as usize)?;
    let call = Sgemm {
        transa: Transpose::No,
        transb: Transpose::No,
        m: s,
        n: s,
        k: s,
        alpha: 1.0,
        lda: s,
        ldb: s,
        beta: 0.0,
        ldc: s,
    };
    let shape = Shape::new(s as u64, s as u64);
    let v2 = ladder::version(k2_transpose::CHAPTER.versions, TRANSPOSE_FIRST)
        .with_context(|| format!("K.2 has no version {TRANSPOSE_FIRST}"))?;
    let plan = (v2.plan)(shape, gpu.multiprocessors()?)?;
    let transpose = gpu.function(k2_transpose::CHAPTER.id, v2.kernel)?;
    let flops = 2.0 * (s as f64).powi(3);
    let peak = gpu.fp32_peak_tflops()?;
    let tflops = |ms: f32| flops / (ms as f64 * 1e-3) / 1e12;

    // Column-major A and B: sgemm(N, N, m, n, k, A, lda=m, B, ldb=k, C, ldc=m).
    let col_major = median_ms(REPEATS, || gpu.timed(|| blas.sgemm(gpu, &call, &dev_a, &dev_b, &mut c)))?;
    let table = sec.timings(
        &format!("sgemm {s}x{s}x{s}, three ways"),
        "sgemm on column-major A and B",
        col_major,
        n * 4,
        REPEATS,
    );
    // Row-major A and B: C^T = B^T A^T, so the same call with B first and
    // m, n exchanged (here m = n) computes row-major C.
    let swap = table.row(sec, "sgemm on row-major A and B through the operand swap", n * 4, || {
        gpu.timed(|| blas.sgemm(gpu, &call, &dev_b, &dev_a, &mut c))
    })?;
    // Written: C, and before it the two transposes' outputs.
    let first = table.row(sec, "transpose A and B (K.2 v2), then sgemm", 3 * n * 4, || {
        gpu.timed(|| {
            for (src, dst) in [(&dev_a, &mut at), (&dev_b, &mut bt)] {
                // transpose_v2_64x64_float2(float* out, const float* in, size_t rows, size_t cols)
                let mut args = gpu.args(&transpose);
                args.arg(dst).arg(src).arg(&shape.rows).arg(&shape.cols);
                gpu.enqueue(args, &plan.cfg, plan.shared_bytes)?;
            }
            blas.sgemm(gpu, &call, &at, &bt, &mut c)
        })
    })?;
    sec.line(format!(
        "  computed FP32 peak: {} SMs x {:.3} GHz x {} lanes x 2 = {peak:.1} TFLOP/s (a formula, not a measurement)",
        gpu.multiprocessors()?,
        gpu.clock_khz()? as f64 / 1e6,
        ktrav_gpu::runner::fp32_lanes_per_sm(gpu.info.compute_capability)
    ));
    for (name, ms) in [("column-major call", col_major), ("operand swap", swap), ("transpose first", first)] {
        sec.line(format!(
            "  {name}: {:.1} TFLOP/s, {:.1}% of the computed peak",
            tflops(ms),
            100.0 * tflops(ms) / peak
        ));
    }
    sec.line(format!(
        "  against the column-major call's time: the operand swap {:+.1}%, transposing first {:+.1}%",
        100.0 * (swap / col_major - 1.0),
        100.0 * (first / col_major - 1.0)
    ));
    Ok(())
}
// ANCHOR_END: sgemm_layouts

/// The four addition kernels: simulated shapes, a large shape, and timing.
fn twins(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    sec.line("the addition under all four pairings of layout and mapping, each against the simulator:");
    for (shape, block) in [(SOURCE_SHAPE, Dim2::new(4, 4)), (WARP_SHAPE, WARP_BLOCK)] {
        let a_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, layout_marker);
        let b_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, addend);
        for kernel in PAIRINGS {
            let (a, b) = (convert_logical(&a_rm, kernel.order), convert_logical(&b_rm, kernel.order));
            let sim = add_mapped(kernel, a.as_slice(), b.as_slice(), shape, block, &BlockOrder::Forward, f32::NAN);
            let (dev_a, dev_b) = (gpu.upload(a.as_slice())?, gpu.upload(b.as_slice())?);
            let mut out = gpu.poisoned::<f32>(sim.len())?;
            let f = gpu.function(FILE, kernel.kernel_name())?;
            let ms = add_on_gpu(gpu, &f, kernel, &dev_a, &dev_b, &mut out, shape, block)?;
            let label = format!("{shape}, {block} blocks, {}", describe(kernel));
            sec.check(&label, &compare(&gpu.download(&out)?, &sim), Some(ms));
        }
    }

    // Large: a(r,c) and b(r,c) are test values of the row-major index, laid
    // out in each layout; every output offset must hold a(r,c) + b(r,c) of
    // the (r,c) that offset means in that layout.
    let shape = LARGE_ADD;
    let (rows, cols, n) = (shape.rows, shape.cols, shape.elements());
    let a_of = move |r: u64, c: u64| test_value(r * cols + c);
    let b_of = move |r: u64, c: u64| test_value(n + r * cols + c);
    let sum_at = move |order: StorageOrder, j: u64| {
        let (r, c) = match order {
            StorageOrder::RowMajor => (j / cols, j % cols),
            StorageOrder::ColMajor => (j % rows, j / rows),
        };
        a_of(r, c) + b_of(r, c)
    };
    let mut inputs = Vec::new();
    for order in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
        let (a, b) = (Matrix::from_fn(shape, order, a_of), Matrix::from_fn(shape, order, b_of));
        inputs.push((order, gpu.upload(a.as_slice())?, gpu.upload(b.as_slice())?));
    }
    let mut out = gpu.poisoned::<f32>(n as usize)?;
    sec.line(format!("{shape}, {LARGE_BLOCK} blocks, each pairing against a(r,c) + b(r,c) at the offset of (r,c):"));
    for kernel in PAIRINGS {
        let (_, a, b) = inputs.iter().find(|(o, _, _)| *o == kernel.order).expect("both layouts uploaded");
        let f = gpu.function(FILE, kernel.kernel_name())?;
        let ms = add_on_gpu(gpu, &f, kernel, a, b, &mut out, shape, LARGE_BLOCK)?;
        let agreement = compare_with(&gpu.download(&out)?, |j| sum_at(kernel.order, j as u64));
        sec.check(&format!("  {}", describe(kernel)), &agreement, Some(ms));
    }

    // Timing, printed and never asserted.
    const REPEATS: usize = 20;
    let bytes = 3 * n * 4; // two reads and one write per element
    let table = sec.bandwidth(gpu, &format!("{shape} floats, {LARGE_BLOCK} blocks"), (n * 4) as usize, REPEATS)?;
    for kernel in PAIRINGS {
        let (_, a, b) = inputs.iter().find(|(o, _, _)| *o == kernel.order).expect("both layouts uploaded");
        let f = gpu.function(FILE, kernel.kernel_name())?;
        table.row(sec, &describe(kernel), bytes, || add_on_gpu(gpu, &f, kernel, a, b, &mut out, shape, LARGE_BLOCK))?;
    }
    Ok(())
}

/// One `sgemm` call as the chapter writes it: `first` is the buffer passed
/// as cuBLAS's A, `second` the one passed as its B; alpha is 1 and beta 0.
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

    /// The host model's verdict on the call: whether every operand fits its
    /// buffer, so the call reads and writes only inside its allocations.
    pub fn check(&self) -> Result<(), GemmError> {
        let (ar, ac) = self.transa.stored(self.m, self.k);
        let (br, bc) = self.transb.stored(self.k, self.n);
        check(Slot::A, self.first.len(), self.lda, ar, ac)?;
        check(Slot::B, self.second.len(), self.ldb, br, bc)?;
        check(Slot::C, self.c_len(), self.ldc, self.m, self.n)
    }

    /// The call as cuBLAS is given it (C is not read: beta is 0, so its
    /// poison must survive only where nothing is written).
    pub fn blas(&self) -> Sgemm {
        let trans = |op: Op| if op == Op::N { Transpose::No } else { Transpose::Yes };
        Sgemm {
            transa: trans(self.transa),
            transb: trans(self.transb),
            m: self.m,
            n: self.n,
            k: self.k,
            alpha: 1.0,
            lda: self.lda,
            ldb: self.ldb,
            beta: 0.0,
            ldc: self.ldc,
        }
    }

    /// The chapter's host reference of this very call (float32), on a C
    /// buffer that starts as `c_init` everywhere.
    pub fn host(&self, c_init: f32) -> Result<Vec<f32>, GemmError> {
        let mut c = vec![c_init; self.c_len()];
        let (first, second) = (self.first, self.second);
        sgemm(
            self.transa,
            self.transb,
            self.m,
            self.n,
            self.k,
            1.0,
            first,
            self.lda,
            second,
            self.ldb,
            0.0,
            &mut c,
            self.ldc,
        )?;
        Ok(c)
    }

    /// The same call computed in f64: the reference for shapes where float32
    /// rounding makes an exact comparison meaningless.
    pub fn host_f64(&self) -> Vec<f64> {
        let (lda, ldb, ldc) = (self.lda, self.ldb, self.ldc);
        let op_a = |i: usize, l: usize| {
            f64::from(if self.transa == Op::N { self.first[i + l * lda] } else { self.first[l + i * lda] })
        };
        let op_b = |l: usize, j: usize| {
            f64::from(if self.transb == Op::N { self.second[l + j * ldb] } else { self.second[j + l * ldb] })
        };
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

/// Makes `call` on the GPU into a freshly poisoned C and returns C.
fn gemm_on_gpu(gpu: &Gpu, blas: &Blas, call: &Call) -> Result<Vec<f32>> {
    call.check().with_context(|| format!("{} would read or write past its buffers; not launched", call.name))?;
    let (first, second) = (gpu.upload(call.first)?, gpu.upload(call.second)?);
    let mut c = gpu.poisoned::<f32>(call.c_len())?;
    blas.sgemm(gpu, &call.blas(), &first, &second, &mut c).with_context(|| format!("the {} call", call.name))?;
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

/// The half fix: the operands swapped, `m` and `n` not. It fits the
/// buffers only on a square product; the host model refuses it otherwise.
pub fn half_fix<'a>(m: usize, n: usize, k: usize, a: &'a [f32], b: &'a [f32]) -> Call<'a> {
    Call { name: "half fix", transa: Op::N, transb: Op::N, m, n, k, first: b, lda: n, second: a, ldb: k, ldc: m }
}

/// cuBLAS itself, if it is installed.
fn cublas(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    let blas = match gpu.blas() {
        Ok(blas) => blas,
        Err(reason) => {
            sec.skipped("cuBLAS part", &reason);
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
fn exact_case(gpu: &Gpu, blas: &Blas, sec: &mut GpuSection, m: usize, n: usize, k: usize) -> Result<()> {
    let (a, b) = gemm_operands(m as u64, n as u64, k as u64);
    let want = reference_product(&a, &b);
    sec.line(format!("  A {m}x{k}, B {k}x{n} (the chapter's integer operands; exact comparison):"));
    let poison = f32::from_bits(ktrav::POISON_WORD);
    for call in calls(m, n, k, a.as_slice(), b.as_slice()) {
        let (first, second) = if call.name.starts_with("fix") { ("B", "A") } else { ("A", "B") };
        let got = gemm_on_gpu(gpu, blas, &call)?;
        // The host model runs on a poisoned C as well, so the margin of the
        // wide call must stay unwritten on both.
        let host = call.host(poison).with_context(|| format!("the host model of the {} call", call.name))?;
        let label = format!(
            "    {:<10} {}: GPU against the host model of the same call",
            call.name,
            call.signature(first, second)
        );
        sec.check(&label, &compare(&got, &host), None);
        match call.name {
            "as-is" => {
                let right = (0..m)
                    .flat_map(|i| (0..n).map(move |j| (i, j)))
                    .filter(|&(i, j)| got[i * n + j] == want.get(i as u64, j as u64))
                    .count();
                sec.line(format!(
                    "      C read row-major: {right} of {} entries of A*B right (a trap, wrong on purpose)",
                    m * n
                ));
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
    let half = half_fix(m, n, k, a.as_slice(), b.as_slice());
    if let Err(e) = half.check() {
        sec.line(format!(
            "      {:<10} {}: not launched; the host model refuses it: {e}; on the GPU, {}",
            half.name,
            half.signature("B", "A"),
            e.on_gpu()
        ));
    }
    Ok(())
}

/// A large product of values in [-1, 1): compared in f64 with a relative
/// tolerance, since float32 rounding depends on the summation order.
fn large_case(gpu: &Gpu, blas: &Blas, sec: &mut GpuSection) -> Result<()> {
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
            sec.verdict(
                "      its buffer read row-major as nxm is (A*B)^T",
                &format!("relative error {err:.2e}"),
                err < GEMM_TOLERANCE,
                None,
            );
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
                assert!(call.check().is_ok(), "{} {m}x{n}x{k}", call.name);
                let host = call.host(0.0).unwrap();
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
        assert_eq!(fix.host(0.0).unwrap(), want.as_slice());
        let w = wide.host(f32::NAN).unwrap();
        assert!((0..m).all(|i| (0..n).all(|j| w[i * (n + 2) + j] == want.get(i as u64, j as u64))));
        assert!((0..m).all(|i| w[i * (n + 2) + n].is_nan()));
        let half = half_fix(m, n, k, a.as_slice(), b.as_slice());
        assert_eq!(
            half.check(),
            Err(GemmError::BufferTooShort { slot: Slot::B, rows: 3, cols: 4, ld: 3, needed: 12, len: 6 })
        );
        assert!(half.host(0.0).is_err());
    }

    #[test]
    fn calls_map_onto_cublas() {
        let (a, b) = gemm_operands(2, 4, 3);
        let [_, transposed, fix, _] = calls(2, 4, 3, a.as_slice(), b.as_slice());
        let t = transposed.blas();
        assert_eq!(
            (t.transa, t.transb, t.m, t.n, t.k, t.lda, t.ldb, t.ldc),
            (Transpose::Yes, Transpose::Yes, 2, 4, 3, 3, 4, 2)
        );
        let f = fix.blas();
        assert_eq!((f.transa, f.m, f.n, f.alpha, f.beta), (Transpose::No, 4, 2, 1.0, 0.0));
    }

    /// The sgemm timing's row says it transposes with "K.2 v2": the version
    /// it names is K.2's second.
    #[test]
    fn the_borrowed_transpose_is_k2s_v2_as_its_row_says() {
        let at = k2_transpose::CHAPTER.versions.iter().position(|v| v.kernel == TRANSPOSE_FIRST);
        assert_eq!(at, Some(1), "{TRANSPOSE_FIRST} is not K.2's v2");
    }

    #[test]
    fn large_shapes_are_launchable() {
        for kernel in PAIRINGS {
            assert!(launch_plan(kernel, LARGE_ADD, LARGE_BLOCK).is_ok());
        }
        let (m, n, k) = LARGE_GEMM;
        let (a, b) = (vec![0.0; m * k], vec![0.0; k * n]);
        assert!(calls(m, n, k, &a, &b).iter().all(|c| c.check().is_ok()));
    }
}
