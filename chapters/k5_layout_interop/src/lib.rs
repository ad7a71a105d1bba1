//! Appendix K.5: column-major data and cuBLAS.
//!
//! The coalescing rule of K.3 says "give `threadIdx.x` the axis with
//! stride 1". For row-major data that is the column; for column-major data,
//! the data cuBLAS works in, it is the row. This chapter prints the strides
//! and addresses that show it, converts between the two layouts with two
//! independently written converters, shows that skipping the conversion reads
//! the transpose, and runs a host reference of cuBLAS's column-major GEMM to
//! show the same trap, and the standard way round it, on non-square shapes.
//!
//! The file reads top to bottom: the CPU reference (walks, converters, the
//! host model of `cublasSgemm`), the twins of the four kernels, the launch
//! plan shared by the simulator and [`gpu`], the exploration of each
//! pairing's first warp, and the printed reports.

pub mod exercises;
pub mod figures;
pub mod gpu;
pub mod values;

use ktrav::{BlockOrder, Dim2, GeometryError, LaunchConfig, Matrix, Shape, StorageOrder, Thread};
use ktrav_term::report::{self, join, Report};
use std::collections::BTreeSet;
use std::fmt;

// --- 1. CPU reference --------------------------------------------------------

/// One of a matrix's two axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    Row,
    Col,
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axis::Row => "row",
            Axis::Col => "column",
        })
    }
}

// ANCHOR: walk
/// The axis along which neighbours are neighbours in memory (stride 1):
/// the axis `threadIdx.x` should walk. (A row-major matrix of one column,
/// or a column-major one of one row, has stride 1 on both axes; the
/// layout's own fast axis is returned.)
pub fn contiguous_axis(order: StorageOrder, shape: Shape) -> Axis {
    match order.strides(shape) {
        (1, cs) if cs != 1 || order == StorageOrder::ColMajor => Axis::Row,
        _ => Axis::Col,
    }
}

/// The flat offsets met by stepping along `along` with the other index
/// held at `fixed`.
pub fn walk(order: StorageOrder, shape: Shape, along: Axis, fixed: u64) -> Vec<u64> {
    match along {
        Axis::Col => (0..shape.cols).map(|c| order.offset(shape, fixed, c)).collect(),
        Axis::Row => (0..shape.rows).map(|r| order.offset(shape, r, fixed)).collect(),
    }
}

/// The constant gap between consecutive offsets, if there is one.
pub fn constant_stride(offsets: &[u64]) -> Option<u64> {
    let gaps: BTreeSet<u64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    match gaps.len() {
        0 => Some(0),
        1 => gaps.into_iter().next(),
        _ => None,
    }
}
// ANCHOR_END: walk

// ANCHOR: converters
/// Converter one: copy each logical element `(r, c)`, leaving every offset
/// to the layout-aware accessors of [`Matrix`].
pub fn convert_logical(src: &Matrix<f32>, to: StorageOrder) -> Matrix<f32> {
    Matrix::from_fn(src.shape(), to, |r, c| src.get(r, c))
}

/// Converter two: one pass over a row-major buffer, recovering `(r, c)` from
/// the flat index and writing the column-major offset by hand.
pub fn row_to_col_major_flat(src: &[f32], shape: Shape) -> Vec<f32> {
    let (rows, cols) = (shape.rows as usize, shape.cols as usize);
    assert_eq!(src.len(), rows * cols, "buffer length does not match the shape");
    let mut dst = vec![0.0; src.len()];
    for (i, &v) in src.iter().enumerate() {
        let (r, c) = (i / cols, i % cols);
        dst[c * rows + r] = v;
    }
    dst
}

/// The trap: keep the column-major bytes, but read them as row-major.
/// Read at `cols x rows`, the buffer is exactly the transpose; read at the
/// intended `rows x cols` it is a scramble (see [`layout_report`]).
pub fn reinterpret_as_row_major(src: &Matrix<f32>) -> Matrix<f32> {
    assert_eq!(src.order(), StorageOrder::ColMajor);
    Matrix::from_vec(src.shape().transposed(), StorageOrder::RowMajor, src.as_slice().to_vec())
}
// ANCHOR_END: converters

/// How many elements of a `shape` matrix (holding distinct values) land in
/// their own place when its column-major bytes are read row-major at the
/// same `shape`.
pub fn in_place_at_intended_shape(shape: Shape) -> usize {
    let rm = Matrix::from_fn(shape, StorageOrder::RowMajor, layout_marker);
    let cm = convert_logical(&rm, StorageOrder::ColMajor);
    let read = Matrix::from_vec(shape, StorageOrder::RowMajor, cm.as_slice().to_vec());
    (0..shape.rows)
        .flat_map(|r| (0..shape.cols).map(move |c| (r, c)))
        .filter(|&(r, c)| read.get(r, c) == rm.get(r, c))
        .count()
}

/// A plainly written row-major product, the answer every call is judged by.
pub fn reference_product(a: &Matrix<f32>, b: &Matrix<f32>) -> Matrix<f32> {
    assert_eq!(a.cols(), b.rows(), "inner dimensions differ");
    Matrix::from_fn(Shape::new(a.rows(), b.cols()), StorageOrder::RowMajor, |i, j| {
        (0..a.cols()).map(|l| a.get(i, l) * b.get(l, j)).sum()
    })
}

/// The transpose, as a new row-major matrix.
pub fn transpose(m: &Matrix<f32>) -> Matrix<f32> {
    Matrix::from_fn(m.shape().transposed(), StorageOrder::RowMajor, |r, c| m.get(c, r))
}

/// Logical equality, whatever the two layouts.
pub fn same_values(x: &Matrix<f32>, y: &Matrix<f32>) -> bool {
    x.shape() == y.shape() && (0..x.rows()).all(|r| (0..x.cols()).all(|c| x.get(r, c) == y.get(r, c)))
}

// ANCHOR: gemm
/// cuBLAS's `transa` / `transb`: use a stored operand as it is, or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    N,
    T,
}

impl Op {
    /// The stored shape of an operand that `op` turns into `rows x cols`.
    pub fn stored(self, rows: usize, cols: usize) -> (usize, usize) {
        match self {
            Op::N => (rows, cols),
            Op::T => (cols, rows),
        }
    }
}

/// One of the three matrix slots of a GEMM call, named by place, since a
/// call on row-major data may put the caller's B in cuBLAS's A slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The first operand, cuBLAS's `A` (with `lda`).
    A,
    /// The second operand, cuBLAS's `B` (with `ldb`).
    B,
    /// The output, cuBLAS's `C` (with `ldc`).
    C,
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Slot::A => "first operand (slot A)",
            Slot::B => "second operand (slot B)",
            Slot::C => "output (slot C)",
        })
    }
}

/// Why a GEMM call is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GemmError {
    /// A leading dimension smaller than its matrix's rows: what cuBLAS
    /// reports as `CUBLAS_STATUS_INVALID_VALUE`.
    LeadingDimension { slot: Slot, ld: usize, min: usize },
    /// A buffer too short for the `rows x cols` matrix, `ld` apart, that its
    /// slot must hold. cuBLAS cannot see this; on a GPU it is a read or write
    /// past the allocation.
    BufferTooShort { slot: Slot, rows: usize, cols: usize, ld: usize, needed: usize, len: usize },
}

impl fmt::Display for GemmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GemmError::LeadingDimension { slot, ld, min } => write!(
                f,
                "the {slot} is given leading dimension {ld}, below the {min} rows it is stored with \
                 (CUBLAS_STATUS_INVALID_VALUE)"
            ),
            GemmError::BufferTooShort { slot, rows, cols, ld, needed, len } => write!(
                f,
                "the buffer in the {slot} holds {len} elements, but {rows}x{cols} with columns {ld} apart needs {needed}"
            ),
        }
    }
}

impl GemmError {
    /// What the same call would do on the GPU: cuBLAS checks a leading
    /// dimension and refuses before touching memory, but it cannot know
    /// how long a buffer is.
    pub fn on_gpu(&self) -> &'static str {
        match self {
            GemmError::LeadingDimension { .. } => {
                "by its documentation cuBLAS refuses it too, before reading anything (the call is not made here)"
            }
            GemmError::BufferTooShort { slot: Slot::C, .. } => {
                "cuBLAS cannot see that and would write past the allocation"
            }
            GemmError::BufferTooShort { .. } => "cuBLAS cannot see that and would read past the allocation",
        }
    }
}

impl std::error::Error for GemmError {}

/// Element `(i, j)` of a column-major matrix with leading dimension `ld`.
fn cm(buf: &[f32], ld: usize, i: usize, j: usize) -> f32 {
    buf[i + j * ld]
}

/// Checks one operand of `len` elements: `stored_rows x stored_cols`,
/// column-major, `ld` apart.
pub fn check(slot: Slot, len: usize, ld: usize, stored_rows: usize, stored_cols: usize) -> Result<(), GemmError> {
    let min = stored_rows.max(1);
    if ld < min {
        return Err(GemmError::LeadingDimension { slot, ld, min });
    }
    let needed = if stored_rows == 0 || stored_cols == 0 { 0 } else { (stored_cols - 1) * ld + stored_rows };
    if len < needed {
        return Err(GemmError::BufferTooShort { slot, rows: stored_rows, cols: stored_cols, ld, needed, len });
    }
    Ok(())
}

/// `C = alpha * op(A) * op(B) + beta * C` with cuBLAS's conventions: every
/// matrix column-major, element `(i, j)` of a matrix at `i + j * ld`;
/// `op(A)` is `m x k`, `op(B)` is `k x n`, `C` is `m x n`.
/// The argument list is `cublasSgemm`'s, minus the handle.
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    transa: Op,
    transb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) -> Result<(), GemmError> {
    // A is stored m x k (N) or k x m (T); B is stored k x n (N) or n x k (T).
    let (a_rows, a_cols) = transa.stored(m, k);
    let (b_rows, b_cols) = transb.stored(k, n);
    check(Slot::A, a.len(), lda, a_rows, a_cols)?;
    check(Slot::B, b.len(), ldb, b_rows, b_cols)?;
    check(Slot::C, c.len(), ldc, m, n)?;
    let op_a = |i, l| if transa == Op::N { cm(a, lda, i, l) } else { cm(a, lda, l, i) };
    let op_b = |l, j| if transb == Op::N { cm(b, ldb, l, j) } else { cm(b, ldb, j, l) };
    for j in 0..n {
        for i in 0..m {
            let dot: f32 = (0..k).map(|l| op_a(i, l) * op_b(l, j)).sum();
            let old = if beta == 0.0 { 0.0 } else { beta * c[i + j * ldc] }; // beta = 0 ignores C, as cuBLAS does
            c[i + j * ldc] = alpha * dot + old;
        }
    }
    Ok(())
}

/// The fix for row-major data: a row-major `m x k` buffer is, to a
/// column-major library, the `k x m` matrix Aᵀ (and likewise for B and C),
/// so ask for `Cᵀ = Bᵀ Aᵀ`: B first, A second, m and n swapped. The result
/// lands in `c` as row-major `m x n` with row length `ldc`.
#[allow(clippy::too_many_arguments)]
pub fn sgemm_row_major(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    c: &mut [f32],
    ldc: usize,
) -> Result<(), GemmError> {
    sgemm(Op::N, Op::N, n, m, k, 1.0, b, ldb, a, lda, 0.0, c, ldc)
}
// ANCHOR_END: gemm

// --- 2. Kernel twins: kernels/k5_layout_interop.cu, line for line ------------

// ANCHOR: twins
/// `add_row_major` in `kernels/k5_layout_interop.cu`: x walks columns.
pub fn add_row_major(t: Thread, out: &mut [f32], a: &[f32], b: &[f32], rows: u64, cols: u64) {
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x: x walks columns
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    if row < rows && col < cols {
        // both axes guarded
        let i = (row * cols + col) as usize; // row-major offset
        out[i] = a[i] + b[i];
    }
}

/// `add_col_major` in `kernels/k5_layout_interop.cu`: x walks rows.
pub fn add_col_major(t: Thread, out: &mut [f32], a: &[f32], b: &[f32], rows: u64, cols: u64) {
    let row = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x: x walks rows
    let col = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    if row < rows && col < cols {
        // both axes guarded
        let i = (col * rows + row) as usize; // column-major offset
        out[i] = a[i] + b[i];
    }
}
// ANCHOR_END: twins

/// `add_row_major_x_rows`: row-major offsets, but x walks rows.
pub fn add_row_major_x_rows(t: Thread, out: &mut [f32], a: &[f32], b: &[f32], rows: u64, cols: u64) {
    let row = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x: x walks rows
    let col = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    if row < rows && col < cols {
        // both axes guarded
        let i = (row * cols + col) as usize; // row-major offset: lanes cols apart
        out[i] = a[i] + b[i];
    }
}

/// `add_col_major_x_cols`: column-major offsets, but x walks columns.
pub fn add_col_major_x_cols(t: Thread, out: &mut [f32], a: &[f32], b: &[f32], rows: u64, cols: u64) {
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x: x walks columns
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    if row < rows && col < cols {
        // both axes guarded
        let i = (col * rows + row) as usize; // column-major offset: lanes rows apart
        out[i] = a[i] + b[i];
    }
}

// --- 3. Launch plan: each kernel's launch, for the simulator and the GPU -----

// ANCHOR: plan
/// One kernel of the `.cu` file, named by what it pairs: the storage order
/// its offsets assume and the axis `threadIdx.x` walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub order: StorageOrder,
    pub x_walks: Axis,
}

/// A kernel twin: the `.cu` kernel's parameters, after the thread.
pub type Twin = fn(Thread, &mut [f32], &[f32], &[f32], u64, u64);

/// The four kernels: the two twins, then the two mismatched pairings.
pub const PAIRINGS: [Pairing; 4] = [
    Pairing { order: StorageOrder::RowMajor, x_walks: Axis::Col },
    Pairing { order: StorageOrder::ColMajor, x_walks: Axis::Row },
    Pairing { order: StorageOrder::RowMajor, x_walks: Axis::Row },
    Pairing { order: StorageOrder::ColMajor, x_walks: Axis::Col },
];

impl Pairing {
    /// The twin written for data in `order`: x walks its contiguous axis.
    pub const fn twin_for(order: StorageOrder) -> Pairing {
        let x_walks = match order {
            StorageOrder::RowMajor => Axis::Col,
            StorageOrder::ColMajor => Axis::Row,
        };
        Pairing { order, x_walks }
    }

    /// The kernel's name in `kernels/k5_layout_interop.cu`.
    pub const fn kernel_name(self) -> &'static str {
        match (self.order, self.x_walks) {
            (StorageOrder::RowMajor, Axis::Col) => "add_row_major",
            (StorageOrder::RowMajor, Axis::Row) => "add_row_major_x_rows",
            (StorageOrder::ColMajor, Axis::Row) => "add_col_major",
            (StorageOrder::ColMajor, Axis::Col) => "add_col_major_x_cols",
        }
    }

    /// The kernel's Rust twin.
    pub fn twin(self) -> Twin {
        match (self.order, self.x_walks) {
            (StorageOrder::RowMajor, Axis::Col) => add_row_major,
            (StorageOrder::RowMajor, Axis::Row) => add_row_major_x_rows,
            (StorageOrder::ColMajor, Axis::Row) => add_col_major,
            (StorageOrder::ColMajor, Axis::Col) => add_col_major_x_cols,
        }
    }
}

/// The launch of any of the four kernels on a `shape` matrix: the grid's x
/// covers the axis x walks (`ceil(cols / blockDim.x)` blocks when x walks
/// columns, `ceil(rows / blockDim.x)` when it walks rows); no shared memory.
pub fn launch_plan(kernel: Pairing, shape: Shape, block: Dim2) -> Result<LaunchConfig, GeometryError> {
    match kernel.x_walks {
        Axis::Col => LaunchConfig::covering(shape, block),
        Axis::Row => LaunchConfig::covering(shape.transposed(), block),
    }
}

/// Any of the four kernels through the simulator, launched by
/// [`launch_plan`] with blocks in `order`: `out[i] = a[i] + b[i]` for the
/// element each thread owns. Elements no thread owns stay `fill`.
pub fn add_mapped(
    kernel: Pairing,
    a: &[f32],
    b: &[f32],
    shape: Shape,
    block: Dim2,
    order: &BlockOrder,
    fill: f32,
) -> Vec<f32> {
    let cfg = launch_plan(kernel, shape, block).expect("a valid launch");
    let twin = kernel.twin();
    let mut out = vec![fill; a.len()];
    ktrav::launch(&cfg, order, |t| twin(t, &mut out, a, b, shape.rows, shape.cols));
    out
}

/// Runs the twin that matches `a` and `b`'s storage order.
pub fn add(a: &Matrix<f32>, b: &Matrix<f32>, block: Dim2, order: &BlockOrder) -> Matrix<f32> {
    let (shape, layout) = (a.shape(), a.order());
    assert!(b.shape() == shape && b.order() == layout, "operands differ in shape or layout");
    let out = add_mapped(Pairing::twin_for(layout), a.as_slice(), b.as_slice(), shape, block, order, 0.0);
    Matrix::from_vec(shape, layout, out)
}
// ANCHOR_END: plan

// --- 4. Exploration: where each pairing's first warp reaches -----------------

/// The first warp's access under a kernel: its lanes' offsets (in bounds
/// only) and the number of distinct 32-byte sectors of 4-byte floats they
/// request. Each lane's offset is the one cell its twin writes when it runs
/// alone on a buffer of NaNs.
pub fn first_warp(kernel: Pairing, shape: Shape, block: Dim2) -> (Vec<u64>, u64) {
    let cfg = launch_plan(kernel, shape, block).expect("a valid launch");
    let twin = kernel.twin();
    let zeros = vec![0.0; shape.elements() as usize];
    let mut offsets = Vec::new();
    ktrav::launch(&cfg, &BlockOrder::Forward, |t| {
        if t.linear_block() == 0 && t.linear_in_block() < 32 {
            let mut out = vec![f32::NAN; zeros.len()];
            twin(t, &mut out, &zeros, &zeros, shape.rows, shape.cols);
            offsets.extend(out.iter().position(|v| !v.is_nan()).map(|i| i as u64));
        }
    });
    let sectors: BTreeSet<u64> = offsets.iter().map(|o| o * 4 / 32).collect();
    (offsets, sectors.len() as u64)
}

/// The GEMM operands: A counts down from `m*k`, B counts up from 1, both
/// along their rows, so that even square ones do not commute (AB != BA),
/// and the as-is call, which returns BA there, is caught.
pub fn gemm_operands(m: u64, n: u64, k: u64) -> (Matrix<f32>, Matrix<f32>) {
    let a = Matrix::from_fn(Shape::new(m, k), StorageOrder::RowMajor, |i, l| (m * k - (k * i + l)) as f32);
    let b = Matrix::from_fn(Shape::new(k, n), StorageOrder::RowMajor, |l, j| (n * l + j + 1) as f32);
    (a, b)
}

/// The marker of the layout examples: `r * 100 + c`.
pub fn layout_marker(r: u64, c: u64) -> f32 {
    (r * 100 + c) as f32
}

/// The second operand of the additions: `r + 2 * c`.
pub fn addend(r: u64, c: u64) -> f32 {
    (r + 2 * c) as f32
}

/// The source's shape for the stride tables.
pub const SOURCE_SHAPE: Shape = Shape::new(4, 6);

/// The row (or column) the worked example's four walks hold fixed.
pub const WALK_AT: u64 = 2;

/// The most elements the layout part accepts: its five buffers of that size
/// take 80 MB, and the run about a second even in a debug build.
pub const MAX_LAYOUT_ELEMENTS: u64 = 1 << 22;

/// The shape and block of the coalescing table.
pub const WARP_SHAPE: Shape = Shape::new(64, 96);
pub const WARP_BLOCK: Dim2 = Dim2::new(32, 8);

/// The GEMM shape of the page: non-square, so no mistake can hide.
pub const GEMM_M: u64 = 2;
pub const GEMM_N: u64 = 4;
pub const GEMM_K: u64 = 3;

// --- 5. Report ---------------------------------------------------------------

/// Offsets for printing: all of them, or the first ten and the last.
fn show_offsets(offsets: &[u64]) -> String {
    if offsets.len() <= 12 {
        join(offsets, " ")
    } else {
        format!("{} ... {}", join(&offsets[..10], " "), offsets[offsets.len() - 1])
    }
}

/// A matrix on one line, rows separated by `;`.
pub fn show(m: &Matrix<f32>) -> String {
    let rows: Vec<String> = (0..m.rows()).map(|r| join((0..m.cols()).map(|c| m.get(r, c)), " ")).collect();
    format!("[{}]", rows.join("; "))
}

/// What the layout report converts: a row-major matrix of markers, its
/// column-major copy made both ways, the round trip back, and the naive
/// reading of the column-major bytes as row-major.
struct Conversions {
    shape: Shape,
    row_major: Matrix<f32>,
    by_accessors: Matrix<f32>,
    by_flat: Vec<f32>,
    back: Matrix<f32>,
    naive: Matrix<f32>,
}

impl Conversions {
    fn compute(shape: Shape) -> Self {
        let row_major = Matrix::from_fn(shape, StorageOrder::RowMajor, layout_marker);
        let by_accessors = convert_logical(&row_major, StorageOrder::ColMajor);
        let by_flat = row_to_col_major_flat(row_major.as_slice(), shape);
        let back = convert_logical(&by_accessors, StorageOrder::RowMajor);
        let naive = reinterpret_as_row_major(&by_accessors);
        Conversions { shape, row_major, by_accessors, by_flat, back, naive }
    }

    /// The converter by accessors and the one by flat index write the same bytes.
    fn converters_agree(&self) -> bool {
        self.by_accessors.as_slice() == self.by_flat.as_slice()
    }

    /// Every `(r, c)` holds the same value before and after the conversion.
    fn values_preserved(&self) -> bool {
        same_values(&self.by_accessors, &self.row_major)
    }

    /// Converting back gives the row-major buffer, element for element.
    fn round_trip(&self) -> bool {
        self.back.as_slice() == self.row_major.as_slice()
    }

    /// The naive reading's `(c, r)` is the original's `(r, c)` everywhere.
    fn naive_is_transpose(&self) -> bool {
        let (rows, cols) = (self.shape.rows, self.shape.cols);
        (0..rows).all(|r| (0..cols).all(|c| self.naive.get(c, r) == self.row_major.get(r, c)))
    }

    /// A reading of the column-major bytes as row-major, at the swapped
    /// shape or at the intended one, is the original matrix. It must not
    /// be, except for a single row or column, stored alike in both layouts.
    fn naive_is_original(&self) -> bool {
        (self.naive.rows() == self.shape.rows && same_values(&self.naive, &self.row_major))
            || in_place_at_intended_shape(self.shape) as u64 == self.shape.elements()
    }

    /// One row or one column: the two layouts store it alike.
    fn is_vector(&self) -> bool {
        self.shape.rows == 1 || self.shape.cols == 1
    }

    /// Every check of the report holds.
    fn all_hold(&self) -> bool {
        self.converters_agree()
            && self.values_preserved()
            && self.round_trip()
            && self.naive_is_transpose()
            && (self.is_vector() || !self.naive_is_original())
    }
}

/// Strides, walks, and the checks on the conversion and the naive reading,
/// for any shape; the worked example is this for 4x6.
pub fn layout_report(shape: Shape) -> String {
    let conversions = Conversions::compute(shape);
    let mut out = Report::new();
    out.heading(&format!("K.5: a {shape} matrix in each layout, and the axis x should walk"));
    stride_table(&mut out, shape);
    out.blank();
    out.heading("Checks on the conversion, and on reading without one");
    check_table(&mut out, &conversions);
    out.blank();
    out.line(format!("every check above holds: {}", report::verdict(conversions.all_hold())));
    out.into_string()
}

/// The two axes, the one `threadIdx.x` should walk first.
fn x_then_y(order: StorageOrder, shape: Shape) -> (Axis, Axis) {
    match contiguous_axis(order, shape) {
        Axis::Col => (Axis::Col, Axis::Row),
        Axis::Row => (Axis::Row, Axis::Col),
    }
}

/// One row per layout: the offset step of each axis, the axis K.3's rule
/// gives `threadIdx.x`, and the offsets met along x and along y with the
/// other index held at [`WALK_AT`] (or the last one, on a smaller matrix).
fn stride_table(out: &mut Report, shape: Shape) {
    let mut rows = vec![["layout", "row step", "column step", "x walks the", "x's offsets", "y's offsets"]
        .map(String::from)
        .to_vec()];
    let held = |along: Axis| match along {
        Axis::Col => WALK_AT.min(shape.rows - 1),
        Axis::Row => WALK_AT.min(shape.cols - 1),
    };
    for order in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
        let (rs, cs) = order.strides(shape);
        let (x, y) = x_then_y(order, shape);
        let offsets = |along: Axis| show_offsets(&walk(order, shape, along, held(along)));
        rows.push(vec![order.to_string(), rs.to_string(), cs.to_string(), format!("{x}s"), offsets(x), offsets(y)]);
    }
    out.table(&rows);
    out.line("  row step, column step: how far the flat offset moves for one step along that axis");
    out.line(format!(
        "  x's, y's offsets: stepping along that thread's axis, the other index held at {WALK_AT} (or its last value)"
    ));
}

/// The conversion, the round trip and the naive reading, one numbered row
/// each: what is compared and what came out.
fn check_table(out: &mut Report, c: &Conversions) {
    let (shape, n) = (c.shape, c.shape.elements());
    let word = |ok: bool, yes: &str, no: &str| report::flag(ok, if ok { yes } else { no });
    let mut rows = vec![vec!["#".to_string(), "compared".to_string(), "found".to_string()]];
    let mut add = |what: String, found: String| {
        let number = rows.len().to_string();
        rows.push(vec![number, what, found]);
    };
    add(
        "column-major copy by Matrix accessors vs by flat index".into(),
        word(c.converters_agree(), "the same bytes", "different bytes"),
    );
    add(
        "each (r, c) of the copy vs of the row-major original".into(),
        word(c.values_preserved(), &format!("{n} of {n} equal"), "some differ"),
    );
    add(
        "the copy converted back vs the row-major original".into(),
        word(c.round_trip(), "the same bytes", "different bytes"),
    );
    add(
        format!("the copy's bytes as a row-major {}, at (c, r), vs the original at (r, c)", c.naive.shape()),
        word(c.naive_is_transpose(), "the transpose, everywhere", "not the transpose"),
    );
    if shape.rows != shape.cols {
        add(
            format!("the copy's bytes as a row-major {shape} vs the original"),
            format!("{} of {n} in place", in_place_at_intended_shape(shape)),
        );
    }
    let found = match (c.naive_is_original(), c.is_vector()) {
        (false, _) => report::flag(true, "a different matrix, no error raised"),
        (true, true) => report::flag(true, "the original: one row or column is stored alike either way"),
        (true, false) => report::flag(false, "the original"),
    };
    add("either reading of the copy's bytes vs the original matrix".into(), found);
    out.table(&rows);
}

/// The worked example: every figure of the source's K.5 output.
pub fn worked_example() -> String {
    layout_report(SOURCE_SHAPE)
}

/// The twins side by side: same answer, and the first warp's addresses under
/// every pairing of layout and thread mapping.
pub fn twins_report() -> String {
    let shape = WARP_SHAPE;
    let mut out = Report::new();
    out.heading(&format!("The twin kernels on a {shape} matrix, {WARP_BLOCK} blocks"));
    let a_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, layout_marker);
    let b_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, addend);
    let (a_cm, b_cm) = (convert_logical(&a_rm, StorageOrder::ColMajor), convert_logical(&b_rm, StorageOrder::ColMajor));
    let sum_rm = add(&a_rm, &b_rm, WARP_BLOCK, &BlockOrder::Shuffled(5));
    let sum_cm = add(&a_cm, &b_cm, WARP_BLOCK, &BlockOrder::Shuffled(5));
    let expect = Matrix::from_fn(shape, StorageOrder::RowMajor, |r, c| a_rm.get(r, c) + b_rm.get(r, c));
    out.line(format!(
        "add_row_major on row-major buffers and add_col_major on column-major buffers each give a + b: {}",
        report::verdict(same_values(&sum_rm, &expect) && same_values(&sum_cm, &expect))
    ));
    out.line("the first warp (32 lanes along x) of each pairing of layout and mapping:");
    for order in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
        for x_walks in [Axis::Col, Axis::Row] {
            let kernel = Pairing { order, x_walks };
            let (offsets, sectors) = first_warp(kernel, shape, WARP_BLOCK);
            let stride = constant_stride(&offsets).map_or("none".to_string(), |s| s.to_string());
            let twin = if kernel == Pairing::twin_for(order) { kernel.kernel_name() } else { "mismatched" };
            out.line(format!(
                "  {order} data, x walks {x_walks}s ({twin}): lane stride {stride}, 32-byte sectors requested: {sectors}"
            ));
        }
    }
    out.into_string()
}

/// The first trap: `sgemm` handed the row-major buffers as they are, with
/// the leading dimensions of the docs' column-major examples; C as a
/// row-major reader sees it.
fn as_is_product(a: &Matrix<f32>, b: &Matrix<f32>, m: u64, n: u64, k: u64) -> Result<Matrix<f32>, GemmError> {
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let mut c = vec![0.0; mu * nu];
    sgemm(Op::N, Op::N, mu, nu, ku, 1.0, a.as_slice(), mu, b.as_slice(), ku, 0.0, &mut c, mu)?;
    Ok(Matrix::from_vec(Shape::new(m, n), StorageOrder::RowMajor, c))
}

/// How many of the as-is call's `m x n` entries come out right, and of how
/// many (`None` when the call is refused).
pub fn as_is_entries_right(m: u64, n: u64, k: u64) -> Option<(usize, u64)> {
    let (a, b) = gemm_operands(m, n, k);
    let want = reference_product(&a, &b);
    let got = as_is_product(&a, &b, m, n, k).ok()?;
    Some((entries_right(&got, &want), m * n))
}

/// Why the half fix (operands swapped, `m` and `n` not) is refused on an
/// `m x k` by `k x n` product; `None` where it is accepted (square shapes).
pub fn half_fix_refusal(m: u64, n: u64, k: u64) -> Option<GemmError> {
    GemmCalls::compute(m, n, k).half_fix.err()
}

/// How many entries of `want`'s shape `got` holds equal to `want`'s.
fn entries_right(got: &Matrix<f32>, want: &Matrix<f32>) -> usize {
    let (m, n) = (want.shape().rows, want.shape().cols);
    (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).filter(|&(i, j)| got.get(i, j) == want.get(i, j)).count()
}

/// A buffer read row-major as an `r x c` matrix.
fn read_row_major(buf: &[f32], r: u64, c: u64) -> Matrix<f32> {
    Matrix::from_vec(Shape::new(r, c), StorageOrder::RowMajor, buf.to_vec())
}

/// Columns the GEMM report's wider C buffer has past `n` in every row.
const WIDE_MARGIN: usize = 2;

/// The cuBLAS-style calls of the GEMM report on row-major `A` (`m x k`) and
/// `B` (`k x n`): each call's C buffer, or why it was refused.
struct GemmCalls {
    m: u64,
    n: u64,
    k: u64,
    a: Matrix<f32>,
    b: Matrix<f32>,
    /// A*B by the plain row-major loop.
    want: Matrix<f32>,
    /// The first trap: the buffers as they are, with the docs' leading dimensions.
    as_is: Result<Matrix<f32>, GemmError>,
    /// The second trap: transposes that undo the operands' layout, C written column-major.
    transposed: Result<Vec<f32>, GemmError>,
    /// The half fix: operands swapped, m and n not.
    half_fix: Result<Vec<f32>, GemmError>,
    /// The half fix and the fix on a square `k x k` by `k x k` product.
    square_half: Result<Vec<f32>, GemmError>,
    square_full: Result<Vec<f32>, GemmError>,
    /// The fix: C^T = B^T A^T.
    fix: Result<Vec<f32>, GemmError>,
    /// The fix into rows [`WIDE_MARGIN`] wider than `n`, filled with -1 before.
    wide: Result<Vec<f32>, GemmError>,
}

impl GemmCalls {
    fn compute(m: u64, n: u64, k: u64) -> Self {
        let (a, b) = gemm_operands(m, n, k);
        let want = reference_product(&a, &b);
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let (a_s, b_s) = (a.as_slice(), b.as_slice());
        let as_is = as_is_product(&a, &b, m, n, k);
        let mut c = vec![0.0; mu * nu];
        let transposed = sgemm(Op::T, Op::T, mu, nu, ku, 1.0, a_s, ku, b_s, nu, 0.0, &mut c, mu).map(|()| c);
        let mut c = vec![0.0; mu * nu];
        let half_fix = sgemm(Op::N, Op::N, mu, nu, ku, 1.0, b_s, nu, a_s, ku, 0.0, &mut c, mu).map(|()| c);
        let (sa, sb) = gemm_operands(k, k, k);
        let su = ku;
        let (mut half, mut full) = (vec![0.0; su * su], vec![0.0; su * su]);
        let square_half =
            sgemm(Op::N, Op::N, su, su, su, 1.0, sb.as_slice(), su, sa.as_slice(), su, 0.0, &mut half, su)
                .map(|()| half);
        let square_full =
            sgemm_row_major(su, su, su, sa.as_slice(), su, sb.as_slice(), su, &mut full, su).map(|()| full);
        let mut c = vec![0.0; mu * nu];
        let fix = sgemm_row_major(mu, nu, ku, a_s, ku, b_s, nu, &mut c, nu).map(|()| c);
        let ldc = nu + WIDE_MARGIN;
        let mut c = vec![-1.0; mu * ldc];
        let wide = sgemm_row_major(mu, nu, ku, a_s, ku, b_s, nu, &mut c, ldc).map(|()| c);
        GemmCalls { m, n, k, a, b, want, as_is, transposed, half_fix, square_half, square_full, fix, wide }
    }

    /// How many of C's entries, read row-major as `m x n`, equal A*B's.
    fn entries_right(&self, buf: &[f32]) -> usize {
        entries_right(&read_row_major(buf, self.m, self.n), &self.want)
    }

    /// To a column-major reader A's buffer is A^T, and B's is B^T.
    fn operands_seen_transposed(&self) -> bool {
        let (m, n, k) = (self.m, self.n, self.k);
        let a_seen = Matrix::from_vec(Shape::new(k, m), StorageOrder::ColMajor, self.a.as_slice().to_vec());
        let b_seen = Matrix::from_vec(Shape::new(n, k), StorageOrder::ColMajor, self.b.as_slice().to_vec());
        same_values(&a_seen, &transpose(&self.a)) && same_values(&b_seen, &transpose(&self.b))
    }

    /// The second trap's buffer, read row-major as `n x m`, is (A*B)^T.
    fn transposed_is_product_transposed(&self) -> bool {
        let want_t = transpose(&self.want);
        self.transposed.as_ref().is_ok_and(|c| same_values(&read_row_major(c, self.n, self.m), &want_t))
    }

    /// On a square product the half fix gives the fix's very buffer.
    fn square_hides_half_fix(&self) -> bool {
        matches!((&self.square_half, &self.square_full), (Ok(half), Ok(full)) if half == full)
    }

    /// The fix's C, read row-major, is A*B.
    fn fixed(&self) -> bool {
        self.fix.as_ref().is_ok_and(|c| same_values(&read_row_major(c, self.m, self.n), &self.want))
    }

    /// Into wider rows the fix writes A*B in the first `n` columns and
    /// leaves the margin alone.
    fn wide_right(&self) -> bool {
        let (mu, nu) = (self.m as usize, self.n as usize);
        let ldc = nu + WIDE_MARGIN;
        self.wide.as_ref().is_ok_and(|wide| {
            let inside = (0..mu).all(|i| (0..nu).all(|j| wide[i * ldc + j] == self.want.get(i as u64, j as u64)));
            let margin = (0..mu).all(|i| (nu..ldc).all(|j| wide[i * ldc + j] == -1.0));
            inside && margin
        })
    }

    /// Every check of the report holds.
    fn all_hold(&self) -> bool {
        self.operands_seen_transposed()
            && self.transposed_is_product_transposed()
            && self.square_hides_half_fix()
            && self.fixed()
            && self.wide_right()
    }
}

/// Four cuBLAS-style calls on row-major data, for any `m x k` times `k x n`:
/// two traps, a half fix and the fix.
pub fn gemm_report(m: u64, n: u64, k: u64) -> String {
    let calls = GemmCalls::compute(m, n, k);
    let mut out = Report::new();
    print_operands(&mut out, &calls);
    print_traps(&mut out, &calls);
    print_half_fix(&mut out, &calls);
    print_fix(&mut out, &calls);
    out.blank();
    out.line(format!("every check above holds: {}", report::verdict(calls.all_hold())));
    out.into_string()
}

/// The operands, their product, and what a column-major reader sees in them.
fn print_operands(out: &mut Report, g: &GemmCalls) {
    let (m, n, k) = (g.m, g.n, g.k);
    out.heading("cuBLAS conventions: column-major operands, each with a leading dimension");
    out.line(format!("A is {m}x{k}, B is {k}x{n}, C = A*B is {m}x{n}; all three live in row-major buffers"));
    out.line(format!("A = {}", show(&g.a)));
    out.line(format!("B = {}", show(&g.b)));
    out.line(format!("A*B, by the plain row-major loop = {}", show(&g.want)));
    out.line(format!(
        "to a column-major reader, A's buffer (ld {k}) is the {k}x{m} matrix A^T and B's (ld {n}) the {n}x{k} B^T: {}",
        report::verdict(g.operands_seen_transposed())
    ));
    out.blank();
}

/// The two traps: the buffers as they are, and both operands transposed.
fn print_traps(out: &mut Report, g: &GemmCalls) {
    let (m, n, k) = (g.m, g.n, g.k);
    let cells = m * n;
    out.line(format!("as-is:      sgemm(N, N, m={m}, n={n}, k={k}, A, lda={m}, B, ldb={k}, C, ldc={m})"));
    match &g.as_is {
        Ok(got) => {
            out.line(format!(
                "  accepted without complaint; C read row-major = {}: {} of {cells} entries right",
                show(got),
                entries_right(got, &g.want)
            ));
        }
        Err(e) => {
            out.line(format!("  refused: {e}"));
        }
    }
    out.line(format!("transposed: sgemm(T, T, m={m}, n={n}, k={k}, A, lda={k}, B, ldb={n}, C, ldc={m})"));
    if let Ok(c) = &g.transposed {
        out.line(format!(
            "  C read row-major as {m}x{n} = {}: {} of {cells} entries right",
            show(&read_row_major(c, m, n)),
            g.entries_right(c)
        ));
        out.line(format!(
            "  the buffer read row-major as {n}x{m} is exactly (A*B)^T: {}",
            report::verdict(g.transposed_is_product_transposed())
        ));
    }
}

/// The half fix, and the square product on which it looks right.
fn print_half_fix(out: &mut Report, g: &GemmCalls) {
    let (m, n, k) = (g.m, g.n, g.k);
    out.line(format!("half fix:   sgemm(N, N, m={m}, n={n}, k={k}, B, lda={n}, A, ldb={k}, C, ldc={m})"));
    match &g.half_fix {
        Ok(c) => {
            out.line(format!("  accepted; C read row-major: {} of {} entries right", g.entries_right(c), m * n));
        }
        Err(e) => {
            out.line(format!("  refused here: {e}; on a GPU, {}", e.on_gpu()));
        }
    }
    out.line(format!(
        "  on a square {k}x{k} by {k}x{k} product the half fix gives the very same buffer: {}",
        report::verdict(g.square_hides_half_fix())
    ));
}

/// The fix, into a buffer of `n` columns and into wider rows.
fn print_fix(out: &mut Report, g: &GemmCalls) {
    let (m, n, k) = (g.m, g.n, g.k);
    out.line(format!("fix:        sgemm(N, N, m={n}, n={m}, k={k}, B, lda={n}, A, ldb={k}, C, ldc={n})"));
    out.line(format!(
        "  C read row-major equals A*B, with no buffer copied or transposed: {}",
        report::verdict(g.fixed())
    ));
    let ldc = n as usize + WIDE_MARGIN;
    out.line(format!(
        "  into rows {ldc} wide (ldc={ldc}): A*B in the first {n} columns, the other {WIDE_MARGIN} untouched: {}",
        report::verdict(g.wide_right())
    ));
}

/// What the binary prints by default, before the GPU section: the worked
/// example, the twins and the cuBLAS-convention GEMM.
pub fn report() -> Vec<String> {
    vec![worked_example(), twins_report(), gemm_report(GEMM_M, GEMM_N, GEMM_K), exercises::shown()]
}

/// Every output the K.5 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k5_layout_interop.txt", worked_example()),
        ("k5_layout_interop-twins.txt", twins_report()),
        ("k5_layout_interop-gemm.txt", gemm_report(GEMM_M, GEMM_N, GEMM_K)),
        ("k5_layout_interop-exercise.txt", exercises::shown()),
        ("k5_layout_interop-find-the-bug.txt", exercises::find_the_bug_shown()),
        ("k5_layout_interop-versions.txt", CHAPTER.ladder_text()),
    ]
}

/// K.5 as one value, for its binary, the root runner, the GPU suite and the book.
pub const CHAPTER: ktrav::Chapter = ktrav::Chapter {
    id: "k5_layout_interop",
    section: "K.5",
    title: "Column-major data and cuBLAS",
    report,
    shown_outputs,
    figures: figures::figures,
    kernel_source: Some(include_str!("../../../kernels/k5_layout_interop.cu")),
    values: values::values,
    gpu: Some(&gpu::ENTRY),
    exercises: exercises::EXERCISES,
    sim_exercises: exercises::SIM_EXERCISES,
    versions: &VERSIONS,
};

// --- How fast can it go -------------------------------------------------------

/// The faster element-wise adds of `kernels/k5_layout_interop.cu`, in
/// order. Each takes `(out, a, b, rows, cols)` with 64-bit rows and cols;
/// out = a + b over the flat index, so one kernel serves both layouts.
pub const VERSIONS: [ktrav::ladder::Version; 3] = [
    ktrav::ladder::Version {
        kernel: "add_v1_grid_stride",
        block: ktrav::ladder::BlockRule::OneDimensional,
        static_shared: 0,
        plan: add_v1_plan,
    },
    ktrav::ladder::Version {
        kernel: "add_v2_float4",
        block: ktrav::ladder::BlockRule::OneDimensional,
        static_shared: 0,
        plan: add_v2_plan,
    },
    ktrav::ladder::Version {
        kernel: "add_v3_float4_x4",
        block: ktrav::ladder::BlockRule::OneDimensional,
        static_shared: 0,
        plan: add_v3_plan,
    },
];

/// v1: 256-thread blocks, one element per thread per round, 8 blocks per SM.
pub fn add_v1_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, GeometryError> {
    ktrav::ladder::grid_stride(shape.elements(), 256, 1, sms).map(ktrav::ladder::plain)
}

/// v2: as v1, four elements per thread per round.
pub fn add_v2_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, GeometryError> {
    ktrav::ladder::grid_stride(shape.elements(), 256, 4, sms).map(ktrav::ladder::plain)
}

/// v3: as v1, sixteen elements per thread per round.
pub fn add_v3_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, GeometryError> {
    ktrav::ladder::grid_stride(shape.elements(), 256, 16, sms).map(ktrav::ladder::plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn source_figures() {
        let s = SOURCE_SHAPE;
        assert_eq!(walk(StorageOrder::RowMajor, s, Axis::Col, 2), vec![12, 13, 14, 15, 16, 17]);
        assert_eq!(walk(StorageOrder::ColMajor, s, Axis::Row, 2), vec![8, 9, 10, 11]);
        assert_eq!(walk(StorageOrder::RowMajor, s, Axis::Row, 2), vec![2, 8, 14, 20]);
        assert_eq!(walk(StorageOrder::ColMajor, s, Axis::Col, 2), vec![2, 6, 10, 14, 18, 22]);
        assert_eq!(constant_stride(&[2, 6, 10, 14]), Some(4));
        assert_eq!(constant_stride(&[2, 6, 11]), None);
        assert_eq!(contiguous_axis(StorageOrder::RowMajor, s), Axis::Col);
        assert_eq!(contiguous_axis(StorageOrder::ColMajor, s), Axis::Row);
        let text = report::plain(&worked_example());
        assert!(text.ends_with("every check above holds: true\n"), "{text}");
        assert!(
            text.contains("row-major  6         1            columns      12 13 14 15 16 17  2 8 14 20\n"),
            "{text}"
        );
        assert!(text.contains("vs the original                        2 of 24 in place\n"), "{text}");
        // A single row or column is stored alike in both layouts: reading
        // it without converting is no trap, and no check fails.
        for shape in [Shape::new(1, 7), Shape::new(7, 1)] {
            let c = Conversions::compute(shape);
            assert!(c.naive_is_original() && c.all_hold(), "{shape}");
        }
        assert!(!Conversions::compute(Shape::new(3, 3)).naive_is_original());
    }

    #[test]
    fn twins_coalesce_and_mismatches_do_not() {
        for (kernel, sectors) in PAIRINGS.into_iter().zip([4, 4, 32, 32]) {
            assert_eq!(first_warp(kernel, WARP_SHAPE, WARP_BLOCK).1, sectors, "{kernel:?}");
        }
        // The lanes of a twin's warp sit one float apart, from offset 0.
        assert_eq!(first_warp(PAIRINGS[0], WARP_SHAPE, WARP_BLOCK).0, (0..32).collect::<Vec<u64>>());
    }

    #[test]
    fn source_gemm_figures() {
        let text = report::plain(&gemm_report(GEMM_M, GEMM_N, GEMM_K));
        assert!(text.contains("A*B, by the plain row-major loop = [67 82 97 112; 22 28 34 40]"), "{text}");
        assert!(text.contains("C read row-major as 2x4 = [67 22 82 28; 97 34 112 40]"), "{text}");
        assert!(
            text.contains(
                "the buffer in the second operand (slot B) holds 6 elements, but 3x4 with columns 3 apart needs 12"
            ),
            "{text}"
        );
        assert!(text.ends_with("every check above holds: true\n"), "{text}");
    }

    #[test]
    fn leading_dimensions_are_checked_like_cublas() {
        let (a, b) = (vec![1.0; 6], vec![1.0; 12]);
        let mut c = vec![0.0; 8];
        let e = sgemm(Op::N, Op::N, 2, 4, 3, 1.0, &a, 1, &b, 3, 0.0, &mut c, 2).unwrap_err();
        assert_eq!(e, GemmError::LeadingDimension { slot: Slot::A, ld: 1, min: 2 });
        let e = sgemm(Op::T, Op::N, 2, 4, 3, 1.0, &a, 2, &b, 3, 0.0, &mut c, 2).unwrap_err();
        assert_eq!(e, GemmError::LeadingDimension { slot: Slot::A, ld: 2, min: 3 });
        let e = sgemm(Op::N, Op::N, 2, 4, 3, 1.0, &a, 2, &b, 3, 0.0, &mut c, 1).unwrap_err();
        assert_eq!(e, GemmError::LeadingDimension { slot: Slot::C, ld: 1, min: 2 });
        assert!(sgemm(Op::N, Op::N, 2, 4, 3, 1.0, &a, 2, &b, 3, 0.0, &mut c, 2).is_ok());
    }

    #[test]
    fn alpha_and_beta_follow_the_definition() {
        // 1x1 times 1x1: C = 2 * (3 * 4) + 5 * 7.
        let mut c = vec![7.0];
        sgemm(Op::N, Op::N, 1, 1, 1, 2.0, &[3.0], 1, &[4.0], 1, 5.0, &mut c, 1).unwrap();
        assert_eq!(c, vec![59.0]);
    }

    /// All four pairings compute the same sum, whatever the layout their
    /// offsets assume, when given buffers in that layout.
    #[test]
    fn every_pairing_adds_correctly() {
        let shape = Shape::new(13, 21);
        let a_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, layout_marker);
        let b_rm = Matrix::from_fn(shape, StorageOrder::RowMajor, addend);
        let block = Dim2::new(8, 4);
        for order in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
            let (a, b) = (convert_logical(&a_rm, order), convert_logical(&b_rm, order));
            let twin = add(&a, &b, block, &BlockOrder::Forward);
            for x_walks in [Axis::Col, Axis::Row] {
                let kernel = Pairing { order, x_walks };
                let out = add_mapped(kernel, a.as_slice(), b.as_slice(), shape, block, &BlockOrder::Forward, f32::NAN);
                assert_eq!(out, twin.as_slice(), "{order} data, x walks {x_walks}s");
            }
        }
        assert_eq!(Pairing::twin_for(StorageOrder::ColMajor).kernel_name(), "add_col_major");
    }

    proptest! {
        #[test]
        fn converters_agree_and_round_trip(rows in 1u64..12, cols in 1u64..12) {
            let shape = Shape::new(rows, cols);
            let rm = Matrix::from_fn(shape, StorageOrder::RowMajor, |r, c| (r * 37 + c) as f32);
            let cm = convert_logical(&rm, StorageOrder::ColMajor);
            let flat = row_to_col_major_flat(rm.as_slice(), shape);
            prop_assert_eq!(cm.as_slice(), flat.as_slice());
            let back = convert_logical(&cm, StorageOrder::RowMajor);
            prop_assert_eq!(back.as_slice(), rm.as_slice());
            prop_assert!(same_values(&reinterpret_as_row_major(&cm), &transpose(&rm)));
        }

        /// The twins agree with each other and with a plain sum, whatever
        /// the shape, block and block order.
        #[test]
        fn twins_agree(rows in 1u64..30, cols in 1u64..30, bx in 1u32..40, by in 1u32..8, seed in any::<u64>()) {
            let shape = Shape::new(rows, cols);
            let a = Matrix::from_fn(shape, StorageOrder::RowMajor, |r, c| (r * 31 + c) as f32);
            let b = Matrix::from_fn(shape, StorageOrder::RowMajor, |r, c| (c * 7 + r) as f32);
            let expect = Matrix::from_fn(shape, StorageOrder::RowMajor, |r, c| a.get(r, c) + b.get(r, c));
            let block = Dim2::new(bx, by);
            let order = BlockOrder::Shuffled(seed);
            prop_assert!(same_values(&add(&a, &b, block, &order), &expect));
            let (ac, bc) = (convert_logical(&a, StorageOrder::ColMajor), convert_logical(&b, StorageOrder::ColMajor));
            prop_assert!(same_values(&add(&ac, &bc, block, &order), &expect));
        }

        /// The fix computes A*B for every shape and any row padding; the
        /// transposed-operand call always leaves (A*B)^T in C's buffer.
        #[test]
        fn fix_and_trap_on_any_shape(m in 1usize..7, n in 1usize..7, k in 1usize..7, pa in 0usize..3, pb in 0usize..3, pc in 0usize..3) {
            let (a, b) = gemm_operands(m as u64, n as u64, k as u64);
            let want = reference_product(&a, &b);
            // Row-major buffers with rows padded to lda / ldb / ldc.
            let (lda, ldb, ldc) = (k + pa, n + pb, n + pc);
            let pad = |mat: &Matrix<f32>, ld: usize| -> Vec<f32> {
                let mut v = vec![f32::NAN; mat.rows() as usize * ld];
                for r in 0..mat.rows() { for c in 0..mat.cols() { v[r as usize * ld + c as usize] = mat.get(r, c); } }
                v
            };
            let mut c = vec![0.0; m * ldc];
            sgemm_row_major(m, n, k, &pad(&a, lda), lda, &pad(&b, ldb), ldb, &mut c, ldc).unwrap();
            for i in 0..m { for j in 0..n { prop_assert_eq!(c[i * ldc + j], want.get(i as u64, j as u64)); } }

            let mut t = vec![0.0; m * n];
            sgemm(Op::T, Op::T, m, n, k, 1.0, a.as_slice(), k, b.as_slice(), n, 0.0, &mut t, m).unwrap();
            prop_assert!(same_values(&Matrix::from_vec(Shape::new(n as u64, m as u64), StorageOrder::RowMajor, t), &transpose(&want)));
        }
    }
}
