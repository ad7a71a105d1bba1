//! Appendix K.2: a tiled transpose on the GPU, where shared-memory bank
//! conflicts meet boundary checks.
//!
//! The kernel (`kernels/k2_transpose.cu`) copies a tile of the input into
//! shared memory, waits at a barrier, and writes the tile back out at the
//! swapped block position. This crate runs the same body through the grid
//! simulator of `ktrav::sim`, with a tile width chosen at run time, records
//! which shared-memory word every thread touches, and derives the bank
//! figures from those records rather than from a formula.
//!
//! The file reads in the order of a CUDA study: the CPU reference, the
//! kernel twins (one per `__global__` in the `.cu` file), the launch plan
//! that both the simulator and `gpu` launch, the exploration, and the
//! report.

pub mod exercises;
pub mod figures;
pub mod gpu;
pub mod values;

use anyhow::{bail, Result};
use ktrav::{BlockOrder, Dim2, LaunchConfig, Matrix, Shape, StorageOrder, Thread};
use ktrav_term::progress::ProgressBar;
use ktrav_term::report::{self, Report};

/// The tile width compiled into `kernels/k2_transpose.cu`.
pub const TILE: u32 = 32;
/// Shared memory is split into 32 banks, each one 4-byte word wide.
pub const BANKS: u64 = 32;
/// Threads per warp (the host model's one constant).
pub use ktrav::ladder::WARP;
/// Every element is a 4-byte `f32`.
pub const WORD_BYTES: u64 = 4;
/// The largest matrix the simulator accepts: 2^24 elements, so every
/// element's value `index + 1` is still exact in an `f32`. A custom run of
/// that size simulates eight launches and takes about 20 s and 1.3 GB.
pub const MAX_ELEMENTS: u64 = 1 << 24;

// --- 1. CPU reference -------------------------------------------------------

/// The transpose written the obvious way, to check the tiled one against.
pub fn plain_transpose(m: &Matrix<f32>) -> Matrix<f32> {
    Matrix::from_fn(m.shape().transposed(), StorageOrder::RowMajor, |r, c| m.get(c, r))
}

/// Where element `j` of the transpose comes from: the `cols x rows` output's
/// element `j` sits at `(j / rows, j % rows)`, which holds the input's
/// `(j % rows, j / rows)`, its flat index in the row-major input returned.
/// A closed form, so a transpose of billions of elements is checked without
/// a second matrix.
pub fn transposed_from(shape: Shape, j: u64) -> u64 {
    (j % shape.rows) * shape.cols + j / shape.rows
}

/// A row-major matrix holding `1, 2, 3, ...`: every element distinct and
/// none equal to the output buffer's initial zero, so a misplaced or
/// missing write always shows.
pub fn numbered(shape: Shape) -> Matrix<f32> {
    Matrix::from_fn(shape, StorageOrder::RowMajor, |r, c| (r * shape.cols + c + 1) as f32)
}

// --- 2. Kernel twins --------------------------------------------------------

// ANCHOR: tile
/// The two shared tiles: `[w][w]`, and `[w][w + 1]` with one spare word
/// at the end of every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileLayout {
    Square,
    Padded,
}

impl TileLayout {
    /// Words from one tile row to the next.
    pub const fn stride(self, width: u32) -> u64 {
        match self {
            TileLayout::Square => width as u64,
            TileLayout::Padded => width as u64 + 1,
        }
    }

    /// Bytes of `__shared__` memory the tile takes.
    pub const fn shared_bytes(self, width: u32) -> u64 {
        width as u64 * self.stride(width) * WORD_BYTES
    }

    /// The declaration as the kernel writes it, such as `tile[32][33]`.
    pub fn declaration(self, width: u32) -> String {
        format!("tile[{width}][{}]", self.stride(width))
    }

    /// The `__global__` function that declares this tile.
    pub const fn kernel(self) -> &'static str {
        match self {
            TileLayout::Square => "transpose_tile32",
            TileLayout::Padded => "transpose_tile32_padded",
        }
    }
}

/// One block's `__shared__` tile. Every access also notes the word it
/// touched, which is all the bank arithmetic needs.
pub struct SharedTile {
    words: Vec<f32>,
    stride: u64,
    touched: Vec<u64>,
}

impl SharedTile {
    pub fn new(width: u32, layout: TileLayout) -> Self {
        let stride = layout.stride(width);
        SharedTile { words: vec![0.0; (width as u64 * stride) as usize], stride, touched: Vec::new() }
    }

    /// `tile[row][col] = value`
    pub fn store(&mut self, row: u64, col: u64, value: f32) {
        let word = row * self.stride + col;
        self.touched.push(word);
        self.words[word as usize] = value;
    }

    /// `tile[row][col]`
    pub fn load(&mut self, row: u64, col: u64) -> f32 {
        let word = row * self.stride + col;
        self.touched.push(word);
        self.words[word as usize]
    }
}
// ANCHOR_END: tile

// ANCHOR: body
/// The kernel's body for one thread: `transpose_body(tile, out, in, rows,
/// cols)` in the `.cu` file, line for line, after the thread's built-ins
/// `t` and the barrier phase. `input` is `rows x cols`, `out` is
/// `cols x rows`, both row-major; the block is `w x w` threads and the tile
/// `w` rows of words.
///
/// The kernel walks its rows of tiles in a grid-stride loop (gridDim.y is
/// capped at 65 535), with two barriers per round. Phases `2k` and `2k + 1`
/// are round `k`: before and after the first barrier; the second barrier
/// lies between phase `2k + 1` and phase `2k + 2`.
pub fn transpose_body(
    t: Thread,
    phase: usize,
    tile: &mut SharedTile,
    out: &mut [f32],
    input: &[f32],
    rows: u64,
    cols: u64,
) {
    let w = t.block_dim.x as u64;
    let (tx, ty) = (t.thread_idx.x as u64, t.thread_idx.y as u64);
    let Some(by) = t.strided_block_rows(rows).nth(phase / 2) else {
        return; // this block has no round `phase / 2`
    };
    if phase.is_multiple_of(2) {
        let in_row = by * w + ty;
        let in_col = t.global_x();
        if in_row < rows && in_col < cols {
            tile.store(ty, tx, input[(in_row * cols + in_col) as usize]);
        }
    } else {
        // __syncthreads() lies between the phases.
        let out_row = t.block_idx.x as u64 * w + ty;
        let out_col = by * w + tx;
        if out_row < cols && out_col < rows {
            out[(out_row * rows + out_col) as usize] = tile.load(tx, ty);
        }
    }
}

/// The twin of `transpose_tile32(out, in, rows, cols)`: the body over the
/// square tile the launch gives each block (`__shared__ float
/// tile[TILE][TILE]`).
pub fn transpose_tile32(
    t: Thread,
    phase: usize,
    tile: &mut SharedTile,
    out: &mut [f32],
    input: &[f32],
    rows: u64,
    cols: u64,
) {
    transpose_body(t, phase, tile, out, input, rows, cols);
}

/// The twin of `transpose_tile32_padded(out, in, rows, cols)`: the same
/// body over the padded tile (`__shared__ float tile[TILE][TILE + 1]`).
pub fn transpose_tile32_padded(
    t: Thread,
    phase: usize,
    tile: &mut SharedTile,
    out: &mut [f32],
    input: &[f32],
    rows: u64,
    cols: u64,
) {
    transpose_body(t, phase, tile, out, input, rows, cols);
}
// ANCHOR_END: body

// --- 3. Launch plan ---------------------------------------------------------

/// One simulated thread of either kernel.
pub type Twin = fn(Thread, usize, &mut SharedTile, &mut [f32], &[f32], u64, u64);

/// One shared-memory word touched by one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedAccess {
    pub block: u64,
    pub phase: usize,
    pub warp: u32,
    pub word: u64,
}

/// The result of one simulated launch.
pub struct TransposeRun {
    pub cfg: LaunchConfig,
    pub output: Matrix<f32>,
    /// Every shared-memory access, in the order the simulator made them.
    pub trace: Vec<SharedAccess>,
}

// ANCHOR: launch
/// One launch of a transpose kernel, as data: the simulator and the GPU
/// both launch exactly this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransposeLaunch {
    /// The tile, and with it the kernel.
    pub layout: TileLayout,
    /// `w x w` blocks, `ceil(cols / w)` by `min(ceil(rows / w), 65535)`.
    pub cfg: LaunchConfig,
    /// Rounds of the grid-stride loop over rows of tiles.
    pub rounds: u64,
}

impl TransposeLaunch {
    /// Dynamic shared memory: none, each kernel declares its tile.
    pub const SHARED_BYTES: u32 = 0;

    pub fn kernel(&self) -> &'static str {
        self.layout.kernel()
    }

    /// The kernel's Rust twin.
    pub fn twin(&self) -> Twin {
        match self.layout {
            TileLayout::Square => transpose_tile32,
            TileLayout::Padded => transpose_tile32_padded,
        }
    }
}

/// The launch plan of either kernel on a `shape` input with `width x width`
/// blocks (the kernels' own width is [`TILE`]).
pub fn transpose_launch(layout: TileLayout, shape: Shape, width: u32) -> Result<TransposeLaunch> {
    let cfg = LaunchConfig::covering_strided(shape, Dim2::new(width, width))?;
    Ok(TransposeLaunch { layout, cfg, rounds: cfg.rounds(shape) })
}

/// Transposes a row-major matrix with `width x width` blocks and a tile of
/// the given layout, running the kernel's twin through the grid simulator.
pub fn tiled_transpose(
    input: &Matrix<f32>,
    width: u32,
    layout: TileLayout,
    order: &BlockOrder,
) -> Result<TransposeRun> {
    simulate(input, width, layout, order, &ProgressBar::hidden())
}

/// [`tiled_transpose`], advancing `progress` by one for every block run.
pub fn simulate(
    input: &Matrix<f32>,
    width: u32,
    layout: TileLayout,
    order: &BlockOrder,
    progress: &ProgressBar,
) -> Result<TransposeRun> {
    assert_eq!(input.order(), StorageOrder::RowMajor, "the kernel reads a row-major input");
    let shape = input.shape();
    validate(shape, width)?;
    let launch = transpose_launch(layout, shape, width)?;
    let (twin, mut output, mut trace) = (launch.twin(), vec![0.0f32; shape.elements() as usize], Vec::new());
    let phases = 2 * launch.rounds as usize;
    ktrav::launch_phased(
        &launch.cfg,
        order,
        phases,
        || SharedTile::new(width, layout),
        |t, phase, tile| {
            if phase == 0 && t.linear_in_block() == 0 {
                progress.inc(1);
            }
            twin(t, phase, tile, &mut output, input.as_slice(), shape.rows, shape.cols);
            let warp = t.linear_in_block() / WARP;
            let step = phase % 2; // 0: the store into the tile, 1: the load from it
            trace.extend(tile.touched.drain(..).map(|word| SharedAccess {
                block: t.linear_block(),
                phase: step,
                warp,
                word,
            }));
        },
    );
    let output = Matrix::from_vec(shape.transposed(), StorageOrder::RowMajor, output);
    Ok(TransposeRun { cfg: launch.cfg, output, trace })
}
// ANCHOR_END: launch

// --- 4. Exploration ---------------------------------------------------------

/// The launch for a `shape` input and a `width`-wide tile, or why the
/// simulator can run none.
pub fn validate(shape: Shape, width: u32) -> Result<LaunchConfig> {
    let cfg = transpose_launch(TileLayout::Square, shape, width)?.cfg;
    match shape.checked_elements() {
        Some(n) if n <= MAX_ELEMENTS => Ok(cfg),
        _ => bail!("a {shape} matrix has more than {MAX_ELEMENTS} elements, the simulator's limit"),
    }
}

// ANCHOR: banks
/// The bank a 4-byte shared-memory word lives in.
pub const fn bank(word: u64) -> u64 {
    word % BANKS
}

/// What one warp's shared-memory instruction costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpRequest {
    /// Lanes that took part (inactive lanes, cut off by a guard, do not).
    pub lanes: u32,
    /// Banks the lanes' words fall in.
    pub distinct_banks: u32,
    /// Passes the hardware needs: distinct words in the busiest bank.
    /// Lanes reading the same word share one broadcast, so they count once.
    pub degree: u32,
}

/// Analyses the words one warp touched in one instruction.
pub fn warp_request(words: &[u64]) -> WarpRequest {
    let mut per_bank: Vec<Vec<u64>> = vec![Vec::new(); BANKS as usize];
    for &w in words {
        let b = &mut per_bank[bank(w) as usize];
        if !b.contains(&w) {
            b.push(w);
        }
    }
    WarpRequest {
        lanes: words.len() as u32,
        distinct_banks: per_bank.iter().filter(|b| !b.is_empty()).count() as u32,
        degree: per_bank.iter().map(|b| b.len() as u32).max().unwrap_or(0),
    }
}

/// Every warp request of one phase of a traced launch.
pub fn requests(trace: &[SharedAccess], phase: usize) -> Vec<WarpRequest> {
    trace
        .chunk_by(|a, b| (a.block, a.phase, a.warp) == (b.block, b.phase, b.warp))
        .filter(|group| group[0].phase == phase)
        .map(|group| warp_request(&group.iter().map(|a| a.word).collect::<Vec<_>>()))
        .collect()
}
// ANCHOR_END: banks

/// A phase's requests, summarised: the range of distinct banks and of
/// conflict degrees over all its warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseSummary {
    pub warps: usize,
    pub banks: (u32, u32),
    pub degree: (u32, u32),
}

pub fn summarise(reqs: &[WarpRequest]) -> PhaseSummary {
    let range =
        |f: fn(&WarpRequest) -> u32| (reqs.iter().map(f).min().unwrap_or(0), reqs.iter().map(f).max().unwrap_or(0));
    PhaseSummary { warps: reqs.len(), banks: range(|r| r.distinct_banks), degree: range(|r| r.degree) }
}

/// One of the source's test shapes.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub shape: Shape,
    pub tile: u32,
}

/// The source's four shapes, all with a 4-wide tile: one that the tile
/// divides, two ragged on both axes, one shorter than a tile.
pub const SOURCE_CASES: [Case; 4] = [
    Case { shape: Shape::new(8, 8), tile: 4 },
    Case { shape: Shape::new(7, 5), tile: 4 },
    Case { shape: Shape::new(10, 13), tile: 4 },
    Case { shape: Shape::new(3, 11), tile: 4 },
];

/// The block orders every case is run in: the result must not depend on it.
pub fn orders() -> [BlockOrder; 3] {
    [BlockOrder::Forward, BlockOrder::Reverse, BlockOrder::Shuffled(0x4B32)]
}

/// Simulated launches per custom run: [`check_case`]'s two tiles in three
/// orders, then [`bank_figures`] for each tile.
pub const CUSTOM_LAUNCHES: u64 = 2 * 3 + 2;

/// The tiles of a `shape` input cut by its edge, and all its tiles, for a
/// `tile`-wide tile.
pub fn partial_tiles(shape: Shape, tile: u32) -> (u64, u64) {
    let t = tile as u64;
    let all = shape.rows.div_ceil(t) * shape.cols.div_ceil(t);
    (all - (shape.rows / t) * (shape.cols / t), all)
}

/// One shape checked: its launch, and for the square and then the padded
/// tile, how many of the [`orders`] gave the plain transpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseCheck {
    pub cfg: LaunchConfig,
    pub right: [usize; 2],
}

impl CaseCheck {
    /// Every run of both tiles right.
    pub fn ok(&self) -> bool {
        self.right.iter().all(|&r| r == orders().len())
    }
}

/// Checks one shape: both tile layouts, every block order, against the
/// plain transpose.
pub fn check_case(shape: Shape, tile: u32, progress: &ProgressBar) -> Result<CaseCheck> {
    let cfg = validate(shape, tile)?;
    let input = numbered(shape);
    let expect = plain_transpose(&input);
    let mut right = [0; 2];
    for (i, layout) in [TileLayout::Square, TileLayout::Padded].into_iter().enumerate() {
        for order in orders() {
            right[i] += usize::from(simulate(&input, tile, layout, &order, progress)?.output == expect);
        }
    }
    Ok(CaseCheck { cfg, right })
}

/// The two phases' bank figures for one tile layout, traced on a matrix.
pub fn bank_figures(shape: Shape, width: u32, layout: TileLayout, progress: &ProgressBar) -> Result<[PhaseSummary; 2]> {
    let run = simulate(&numbered(shape), width, layout, &BlockOrder::Forward, progress)?;
    Ok([summarise(&requests(&run.trace, 0)), summarise(&requests(&run.trace, 1))])
}

/// The boundary shapes the worked example traces the 32-wide tile over:
/// the source's four and one larger, ragged on both axes.
pub fn guard_bank_shapes() -> Vec<Shape> {
    SOURCE_CASES.iter().map(|c| c.shape).chain([Shape::new(70, 45)]).collect()
}

/// One shape's warp requests under the kernels' 32-wide tile: the most
/// live lanes of a column-read warp, and for the square and then the padded
/// tile, (requests that spread over the banks as the layout says, requests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardCheck {
    pub lanes: u32,
    pub as_predicted: [(usize, usize); 2],
}

/// Traces both tiles on `shape` with the kernels' 32-wide tile and checks
/// each warp request against [`banks_as_the_layout_says`].
pub fn guard_check(shape: Shape) -> GuardCheck {
    let mut check = GuardCheck { lanes: 0, as_predicted: [(0, 0); 2] };
    for (i, layout) in [TileLayout::Square, TileLayout::Padded].into_iter().enumerate() {
        let run = tiled_transpose(&numbered(shape), TILE, layout, &BlockOrder::Forward).expect("valid shape");
        for phase in [0, 1] {
            for r in requests(&run.trace, phase) {
                if phase == 1 {
                    check.lanes = check.lanes.max(r.lanes);
                }
                check.as_predicted[i].0 += usize::from(banks_as_the_layout_says(layout, phase, &r));
                check.as_predicted[i].1 += 1;
            }
        }
    }
    check
}

/// Whether, on every shape given, with the kernels' 32-wide tile, the
/// boundary guard changed nothing but the number of lanes: every padded
/// request is conflict-free, and every square column read piles all of its
/// active lanes onto one bank. Returns (warp requests checked, verdict).
pub fn guards_leave_banks_alone(shapes: &[Shape]) -> (usize, bool) {
    let (mut checked, mut ok) = (0, true);
    for &shape in shapes {
        for (right, all) in guard_check(shape).as_predicted {
            checked += all;
            ok &= right == all;
        }
    }
    (checked, ok)
}

/// Whether a warp request of `phase` spreads over the banks as `layout`
/// says: a square tile's column read all on one bank, every other request
/// conflict-free.
fn banks_as_the_layout_says(layout: TileLayout, phase: usize, r: &WarpRequest) -> bool {
    match (layout, phase) {
        (TileLayout::Square, 1) => r.distinct_banks == 1 && r.degree == r.lanes,
        _ => r.degree == 1 && r.distinct_banks == r.lanes,
    }
}

// --- 5. Report --------------------------------------------------------------

fn span((lo, hi): (u32, u32)) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo} to {hi}")
    }
}

/// `n of all`, green when every one is, red otherwise.
fn count_cell(n: usize, all: usize) -> String {
    report::flag(n == all, &format!("{n} of {all}"))
}

/// The shapes' table: each launch, its partial tiles, and how many of the
/// block orders gave the plain transpose with each tile.
fn case_table(out: &mut Report, checks: &[(Shape, u32, CaseCheck)]) {
    let mut rows =
        vec![["shape", "tile", "grid", "partial tiles", "square tile", "padded tile"].map(String::from).to_vec()];
    for &(shape, tile, check) in checks {
        let (partial, all) = partial_tiles(shape, tile);
        rows.push(vec![
            shape.to_string(),
            tile.to_string(),
            check.cfg.grid.to_string(),
            if partial == 0 { "none".into() } else { format!("{partial} of {all}") },
            count_cell(check.right[0], orders().len()),
            count_cell(check.right[1], orders().len()),
        ]);
    }
    out.table(&rows);
    out.line("  grid: blocks along x (over the columns) by along y (over the rows)");
    out.line("  square tile, padded tile: block orders (forward, reversed, shuffled) whose output");
    out.line("    equals plain_transpose(input), element for element");
}

/// Both tiles' bank figures on one shape, one row per phase.
fn bank_table(out: &mut Report, shape: Shape, width: u32, progress: &ProgressBar) -> Result<[[PhaseSummary; 2]; 2]> {
    let mut both = [[summarise(&[]); 2]; 2];
    let mut rows =
        vec![["tile", "bytes", "row stride", "access", "warps", "banks per warp", "degree"].map(String::from).to_vec()];
    for (i, layout) in [TileLayout::Square, TileLayout::Padded].into_iter().enumerate() {
        both[i] = bank_figures(shape, width, layout, progress)?;
        for (summary, access) in both[i].iter().zip(["store tile[ty][tx], a row", "load tile[tx][ty], a column"]) {
            rows.push(vec![
                layout.declaration(width),
                layout.shared_bytes(width).to_string(),
                layout.stride(width).to_string(),
                access.to_string(),
                summary.warps.to_string(),
                span(summary.banks),
                span(summary.degree),
            ]);
        }
    }
    out.table(&rows);
    out.line("  row stride: words from one tile row to the next; degree: passes a warp's access takes");
    Ok(both)
}

/// The worked example: every figure of the source's K.2 output, and the
/// boundary shapes' bank figures beyond it.
pub fn worked_example() -> String {
    let quiet = ProgressBar::hidden();
    let mut out = Report::new();
    out.heading("K.2: four shapes through the simulated tiled transpose");
    let checks: Vec<(Shape, u32, CaseCheck)> = SOURCE_CASES
        .iter()
        .map(|c| (c.shape, c.tile, check_case(c.shape, c.tile, &quiet).expect("the source's shapes are valid")))
        .collect();
    case_table(&mut out, &checks);
    out.blank();

    let full = Shape::new(TILE as u64, TILE as u64);
    out.heading(&format!("Banks of the kernels' {TILE}-wide tile on a {full} matrix"));
    bank_table(&mut out, full, TILE, &quiet).expect("32x32 is valid");
    out.blank();

    out.heading(&format!("The {TILE}-wide tile on edge shapes: guards switch lanes off, banks stay put"));
    let mut rows =
        vec![["shape", "most lanes in a column read", "square tile", "padded tile"].map(String::from).to_vec()];
    for shape in guard_bank_shapes() {
        let check = guard_check(shape);
        let [(sq, sq_all), (pad, pad_all)] = check.as_predicted;
        rows.push(vec![shape.to_string(), check.lanes.to_string(), count_cell(sq, sq_all), count_cell(pad, pad_all)]);
    }
    out.table(&rows);
    out.line("  square tile, padded tile: warp requests, stores and loads, that fall as the layout predicts:");
    out.line("    the square tile's column read with every live lane on one bank, all else conflict-free");
    out.into_string()
}

/// The report for any shape and tile width: the correctness check and both
/// tiles' bank figures on that shape. Call [`validate`] first; a large run
/// shows its progress on stderr.
pub fn experiment_report(shape: Shape, tile: u32) -> Result<String> {
    let cfg = validate(shape, tile)?;
    let per_block = tile as u64 * tile as u64;
    // About a second of simulation: 2^22 elements run through a launch.
    let blocks = CUSTOM_LAUNCHES * cfg.blocks();
    let progress = ktrav_term::progress::bar("simulating the tiled transpose", blocks, (1 << 22) / per_block);
    let mut out = Report::new();
    out.heading(&format!("The tiled transpose on a {shape} matrix, {tile}-wide tiles"));
    case_table(&mut out, &[(shape, tile, check_case(shape, tile, &progress)?)]);
    out.blank();
    out.heading(&format!("Banks of both {tile}-wide tiles on the {shape} matrix"));
    bank_table(&mut out, shape, tile, &progress)?;
    progress.finish_and_clear();
    Ok(out.into_string())
}

/// Every output the K.2 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k2_transpose.txt", worked_example()),
        ("k2_transpose-exercise.txt", exercises::shown()),
        ("k2_transpose-find-the-bug.txt", exercises::find_the_bug_shown()),
        ("k2_transpose-versions.txt", CHAPTER.ladder_text()),
        ("k2_transpose-in-flight.txt", in_flight_report()),
    ]
}

/// K.2 as one value: what `main`, the root runner, the GPU suite and the
/// book's tests read.
pub const CHAPTER: ktrav::Chapter = ktrav::Chapter {
    id: "k2_transpose",
    section: "K.2",
    title: "A tiled transpose for any shape",
    report: || vec![worked_example()],
    shown_outputs,
    figures: figures::figures,
    kernel_source: Some(include_str!("../../../kernels/k2_transpose.cu")),
    values: values::values,
    gpu: Some(&gpu::ENTRY),
    exercises: exercises::EXERCISES,
    sim_exercises: exercises::SIM_EXERCISES,
    versions: &VERSIONS,
};

// --- How fast can it go -------------------------------------------------------

/// The faster transposes of `kernels/k2_transpose.cu`, in order. Each takes
/// `(out, in, rows, cols)` with 64-bit rows and cols, handles any shape, and
/// walks its tile column in steps of `gridDim.y`.
pub const VERSIONS: [ktrav::ladder::Version; 3] = [
    ktrav::ladder::Version {
        kernel: "transpose_v1_32x8",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 8)),
        static_shared: 32 * 33 * 4,
        plan: transpose_v1_plan,
    },
    ktrav::ladder::Version {
        kernel: "transpose_v2_64x64_float2",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 8)),
        static_shared: 2 * 32 * 33 * 8,
        plan: transpose_v2_plan,
    },
    ktrav::ladder::Version {
        kernel: "transpose_v3_64x64_float4",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(16, 16)),
        static_shared: 4 * 16 * 17 * 16,
        plan: transpose_v3_plan,
    },
];

/// v1: 32 x 8 blocks over 32 x 32 tiles.
pub fn transpose_v1_plan(shape: Shape, _sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    ktrav::ladder::tiles_strided(shape, 32, Dim2::new(32, 8)).map(ktrav::ladder::plain)
}

/// v2: 32 x 8 blocks over 64 x 64 tiles.
pub fn transpose_v2_plan(shape: Shape, _sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    ktrav::ladder::tiles_strided(shape, 64, Dim2::new(32, 8)).map(ktrav::ladder::plain)
}

/// v3: 16 x 16 blocks over 64 x 64 tiles.
pub fn transpose_v3_plan(shape: Shape, _sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    ktrav::ladder::tiles_strided(shape, 64, Dim2::new(16, 16)).map(ktrav::ladder::plain)
}

// ANCHOR: in_flight
/// ptxas's resource report for `kernels/k2_transpose.cu`, as the pinned nvcc
/// printed it (less its timings, see [`stable_ptxas`]); `booktools refresh` rewrites it from the build's report, and
/// a test fails when the two differ.
pub const PTXAS_REPORT: &str = include_str!("../../../book/measured/ptxas-k2_transpose.txt");
/// [`PTXAS_REPORT`]'s file name under `book/measured/`.
pub const PTXAS_REPORT_FILE: &str = "ptxas-k2_transpose.txt";

/// ptxas's report without its timings (`Compile time = ...`), the part
/// that is the same on every build by the pinned nvcc.
pub fn stable_ptxas(report: &str) -> String {
    report.lines().filter(|l| !l.contains("Compile time")).map(|l| format!("{l}\n")).collect()
}

/// A square matrix every kernel's tile divides, small enough that no grid
/// strides: each block then does exactly one tile, once.
pub const IN_FLIGHT_PROBE: Shape = Shape::new(4096, 4096);

/// One row of the in-flight table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InFlight {
    pub kernel: &'static str,
    pub block: Dim2,
    /// The bytes of the input one thread loads before its block's barrier:
    /// its share of the block's tile. No load depends on another, so this is
    /// what one thread can have travelling from memory at once if the
    /// compiler issues them together; v2 and v3 load it into registers
    /// before their first shared store, v1 stores each row as it goes, and
    /// its sm_90 machine code stores each of its first two loads before the
    /// next ([`SASS_V1`], worked out by [`sass_loads_in_flight`]).
    pub bytes_per_thread: u64,
    pub registers: u32,
    pub shared_bytes: u32,
    pub blocks_per_sm: u32,
    /// Every limit that stops the next block (several where they tie).
    pub limiters: Vec<ktrav::occupancy::Limiter>,
}

impl InFlight {
    /// What one multiprocessor has in flight when it holds as many blocks
    /// as fit.
    pub fn bytes_per_sm(&self) -> u64 {
        self.bytes_per_thread * self.block.count() * self.blocks_per_sm as u64
    }
}

/// The padded teaching kernel and every version: per thread, its share of
/// the tile from its launch on [`IN_FLIGHT_PROBE`]; its registers on
/// `limits.arch` from ptxas's `report`; and how many of its blocks fit on
/// one multiprocessor.
pub fn in_flight(report: &str, limits: &ktrav::occupancy::SmLimits) -> Result<Vec<InFlight>> {
    let resources = ktrav_gpu::kernels::parse_ptxas(report);
    let teaching = transpose_launch(TileLayout::Padded, IN_FLIGHT_PROBE, TILE)?;
    let mut kernels = vec![(teaching.kernel(), teaching.cfg, TileLayout::Padded.shared_bytes(TILE) as u32)];
    for v in &VERSIONS {
        let plan = v.checked_plan(IN_FLIGHT_PROBE, 1).map_err(|e| anyhow::anyhow!("{e}"))?;
        kernels.push((v.kernel, plan.cfg, v.static_shared + plan.shared_bytes));
    }
    kernels
        .into_iter()
        .map(|(kernel, cfg, shared_bytes)| {
            let bytes_per_thread = IN_FLIGHT_PROBE.elements() * WORD_BYTES / cfg.total_threads();
            let registers = resources
                .iter()
                .find(|r| r.function == kernel && r.arch == limits.arch)
                .map(|r| r.registers)
                .ok_or_else(|| anyhow::anyhow!("ptxas's report has no {kernel} for {}", limits.arch))?;
            let needs = ktrav::occupancy::BlockNeeds {
                threads: cfg.block.count() as u32,
                registers_per_thread: registers,
                shared_bytes,
            };
            let (blocks_per_sm, limiters) = limits.blocks_per_sm(needs);
            Ok(InFlight {
                kernel,
                block: cfg.block,
                bytes_per_thread,
                registers,
                shared_bytes,
                blocks_per_sm,
                limiters,
            })
        })
        .collect()
}
// ANCHOR_END: in_flight

/// `transpose_v1_32x8`'s global loads, shared stores and barriers in the
/// machine code of the embedded fatbin, for sm_80 and sm_90, as `cuobjdump
/// -sass` printed them.
pub const SASS_V1: &str = include_str!("../../../bench/results/sass_k2_v1_32x8.txt");
/// [`SASS_V1`]'s path in the repository.
pub const SASS_V1_FILE: &str = "bench/results/sass_k2_v1_32x8.txt";
/// The kernel [`SASS_V1`] lists.
pub const SASS_V1_KERNEL: &str = "transpose_v1_32x8";

/// The most global loads one thread has outstanding at once before its
/// first barrier, in `arch`'s section (`== sm_90`) of a SASS listing: a load
/// counts from its `LDG` until the `STS` that stores the register it loaded
/// into. `None` when the listing has no such section or no load in it.
pub fn sass_loads_in_flight(sass: &str, arch: &str) -> Option<usize> {
    let header = format!("== {arch}");
    let mut lines = sass.lines().skip_while(|l| l.trim() != header);
    lines.next()?;
    let (mut outstanding, mut most, mut loads) = (Vec::<&str>::new(), 0, 0);
    for line in lines.take_while(|l| !l.starts_with("== ")) {
        let code = line.split_once(';').map_or(line, |(c, _)| c);
        let words: Vec<&str> = code.split_whitespace().collect();
        let Some(op) = words.iter().position(|w| w.starts_with("LDG") || w.starts_with("STS") || w.starts_with("BAR"))
        else {
            continue;
        };
        match &words[op][..3] {
            "BAR" => break,
            "LDG" => {
                // LDG.E Rd, [address]: the register loaded into comes first.
                loads += 1;
                outstanding.push(words.get(op + 1).map_or("", |w| w.trim_end_matches(',')));
                most = most.max(outstanding.len());
            }
            _ => {
                // STS [address], Rs: the register stored comes last.
                let stored = words.last().copied().unwrap_or("");
                outstanding.retain(|r| *r != stored);
            }
        }
    }
    (loads > 0).then_some(most)
}

/// The in-flight table as text, for the committed ptxas report on sm_90.
pub fn in_flight_report() -> String {
    let limits = ktrav::occupancy::SM_90;
    let rows = in_flight(PTXAS_REPORT, &limits).expect("the committed report covers every kernel");
    let sass_loads = sass_loads_in_flight(SASS_V1, limits.arch).expect("the SASS listing has the arch");
    let mut out = Report::new();
    out.heading("Bytes in flight: per thread, and per multiprocessor at full occupancy");
    out.line(format!("limits of one multiprocessor, {}", limits.describe()));
    out.line(format!(
        "{:<26} {:>6} {:>9} {:>5} {:>7}  {:<22} {:>9}",
        "kernel", "block", "B/thread", "regs", "shared", "blocks/SM (limited by)", "B/SM"
    ));
    let mark = |r: &InFlight| if r.kernel == SASS_V1_KERNEL { "*" } else { " " };
    for r in &rows {
        out.line(
            format!(
                "{:<26} {:>6} {:>8}{} {:>5} {:>7}  {:<22} {:>8}{}",
                r.kernel,
                r.block.to_string(),
                r.bytes_per_thread,
                mark(r),
                r.registers,
                r.shared_bytes,
                format!(
                    "{} ({})",
                    r.blocks_per_sm,
                    r.limiters.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
                ),
                r.bytes_per_sm(),
                mark(r)
            )
            .trim_end(),
        );
    }
    out.line("B/thread: the thread's share of its block's tile, in loads issued before the barrier, none");
    out.line("  depending on another: all of it in flight at once if the compiler issues them together;");
    out.line(format!("regs: ptxas for {}; B/SM = B/thread x threads x blocks/SM", limits.arch));
    let v1 = rows.iter().find(|r| r.kernel == SASS_V1_KERNEL).expect("v1 is in the table");
    let loads = v1.bytes_per_thread / WORD_BYTES;
    let sass_bytes = sass_loads as u64 * WORD_BYTES;
    out.line(format!(
        "* {}'s {} code ({SASS_V1_FILE}) has at most {sass_loads} of its {loads} loads outstanding:",
        v1.kernel, limits.arch
    ));
    out.line(format!(
        "  {sass_bytes} B per thread, {} B per multiprocessor",
        v1.bytes_per_sm() / v1.bytes_per_thread * sass_bytes
    ));
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        out.line(format!(
            "{} loads {}x the bytes per thread of {}, {}x per multiprocessor",
            b.kernel,
            ratio(b.bytes_per_thread, a.bytes_per_thread),
            a.kernel,
            ratio(b.bytes_per_sm(), a.bytes_per_sm())
        ));
    }
    out.into_string()
}

/// `4`, `0.5`, `1.25`: a ratio with no more digits than it needs.
fn ratio(a: u64, b: u64) -> String {
    let r = format!("{:.2}", a as f64 / b as f64);
    r.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn quiet() -> ProgressBar {
        ProgressBar::hidden()
    }

    /// The committed ptxas report is this build's, wherever nvcc compiled
    /// the kernels (CI must); the in-flight table is read from it.
    #[test]
    fn committed_ptxas_report_is_this_builds() {
        match ktrav_gpu::kernels::find(CHAPTER.id).and_then(|k| k.ptxas_report) {
            Some(report) => assert!(
                stable_ptxas(report) == PTXAS_REPORT,
                "book/measured/{PTXAS_REPORT_FILE} is not what this build's ptxas reported: run scripts/refresh-outputs twice"
            ),
            None => {
                assert!(std::env::var_os("CI").is_none(), "CI must compile the kernels: run scripts/install-nvcc");
                eprintln!("skipped: nvcc not found at build time, the committed ptxas report is not compared");
            }
        }
    }

    /// Each thread's share of its tile: 4 bytes for the teaching kernel, 4x
    /// that for v1's four rows, 4x again for v2's eight float2 loads, and
    /// v3's four float4 loads no more than v2.
    #[test]
    fn in_flight_follows_the_tiles_and_blocks() {
        let rows = in_flight(PTXAS_REPORT, &ktrav::occupancy::SM_90).unwrap();
        let per_thread: Vec<u64> = rows.iter().map(|r| r.bytes_per_thread).collect();
        assert_eq!(per_thread, [4, 16, 64, 64]);
        for r in &rows {
            assert!(r.registers > 0 && r.blocks_per_sm > 0, "{r:?}");
            assert!(r.bytes_per_sm() <= r.bytes_per_thread * 2048, "{r:?}");
        }
        assert!(in_flight("", &ktrav::occupancy::SM_90).is_err(), "a report without the kernels is refused");
    }

    /// The footnote's figure is the committed SASS listing's: sm_80's code
    /// issues all four of v1's loads before its first store, sm_90's at most
    /// two at a time.
    #[test]
    fn v1_loads_in_flight_come_from_the_sass() {
        assert_eq!(sass_loads_in_flight(SASS_V1, "sm_80"), Some(4));
        assert_eq!(sass_loads_in_flight(SASS_V1, "sm_90"), Some(2));
        assert_eq!(sass_loads_in_flight(SASS_V1, "sm_100"), None);
        let listing = "== sm_90\n@!P1 LDG.E R4, [R2.64] ;\nSTS [R5], R4 ;\nLDG.E R6, [R2.64] ;\nLDG.E R7, [R2.64] ;\nLDG.E R8, [R2.64] ;\nBAR.SYNC 0x0 ;\nLDG.E R9, [R2.64] ;\n";
        assert_eq!(sass_loads_in_flight(listing, "sm_90"), Some(3));
        let table = in_flight_report();
        assert!(
            table.contains("has at most 2 of its 4 loads outstanding:\n  8 B per thread, 16384 B per multiprocessor"),
            "{table}"
        );
    }

    #[test]
    fn source_shapes_have_the_source_grids() {
        let grids: Vec<String> =
            SOURCE_CASES.iter().map(|c| validate(c.shape, c.tile).unwrap().grid.to_string()).collect();
        assert_eq!(grids, ["2x2", "2x2", "4x3", "3x1"]);
        for c in SOURCE_CASES {
            let check = check_case(c.shape, c.tile, &quiet()).unwrap();
            assert!(check.ok() && check.right == [3, 3], "{c:?}: {check:?}");
        }
        let partial: Vec<_> = SOURCE_CASES.iter().map(|c| partial_tiles(c.shape, c.tile)).collect();
        assert_eq!(partial, [(0, 4), (3, 4), (6, 12), (3, 3)]);
    }

    #[test]
    fn tile_sizes_match_the_kernels_declarations() {
        assert_eq!(TileLayout::Square.shared_bytes(TILE), 4096);
        assert_eq!(TileLayout::Padded.shared_bytes(TILE), 4224);
    }

    #[test]
    fn column_reads_of_a_full_tile() {
        let full = Shape::new(32, 32);
        let [store, load] = bank_figures(full, TILE, TileLayout::Square, &quiet()).unwrap();
        assert_eq!((store.warps, store.banks, store.degree), (32, (32, 32), (1, 1)));
        assert_eq!((load.warps, load.banks, load.degree), (32, (1, 1), (32, 32)));
        let [store, load] = bank_figures(full, TILE, TileLayout::Padded, &quiet()).unwrap();
        assert_eq!((store.banks, store.degree), ((32, 32), (1, 1)));
        assert_eq!((load.banks, load.degree), ((32, 32), (1, 1)));
    }

    #[test]
    fn bank_arithmetic() {
        // Same word twice is a broadcast, not a conflict.
        assert_eq!(warp_request(&[5, 5, 37]), WarpRequest { lanes: 3, distinct_banks: 1, degree: 2 });
        let stride = |s: u64| warp_request(&(0..32).map(|t| t * s).collect::<Vec<_>>());
        assert_eq!(stride(32).distinct_banks, 1);
        assert_eq!(stride(33).distinct_banks, 32);
        assert_eq!(stride(2).degree, 2);
        assert_eq!(warp_request(&[]).degree, 0);
    }

    #[test]
    fn small_tiles_have_no_conflicts() {
        // A 4x4 block is one 16-lane warp whose column read touches 16
        // different words in 16 different banks, square tile or not.
        let run = tiled_transpose(&numbered(Shape::new(4, 4)), 4, TileLayout::Square, &BlockOrder::Forward).unwrap();
        assert_eq!(requests(&run.trace, 1), vec![WarpRequest { lanes: 16, distinct_banks: 16, degree: 1 }]);
    }

    #[test]
    fn guards_only_switch_lanes_off() {
        // 7x5 at tile 32: one block; the column read has 5 warps of 7 lanes.
        let run = tiled_transpose(&numbered(Shape::new(7, 5)), TILE, TileLayout::Square, &BlockOrder::Forward).unwrap();
        assert_eq!(requests(&run.trace, 1), vec![WarpRequest { lanes: 7, distinct_banks: 1, degree: 7 }; 5]);
        // Per tile layout: 7 store requests (one per input row) and 5 loads.
        assert_eq!(guards_leave_banks_alone(&[Shape::new(7, 5)]), (2 * (7 + 5), true));
    }

    #[test]
    fn padding_by_one_is_tuned_for_32_wide_tiles() {
        // A 16x16 block: one warp spans two thread rows (the page's Try it).
        let shape = Shape::new(33, 65);
        let [_, square] = bank_figures(shape, 16, TileLayout::Square, &quiet()).unwrap();
        let [store, load] = bank_figures(shape, 16, TileLayout::Padded, &quiet()).unwrap();
        assert_eq!(square.degree.1, 8);
        assert_eq!((store.degree.1, load.degree.1), (2, 2));
    }

    #[test]
    fn bad_shapes_are_refused() {
        let refusal = |rows: u64, cols: u64, tile: u32| validate(Shape::new(rows, cols), tile).unwrap_err().to_string();
        assert!(refusal(0, 3, 4).contains("zero"));
        assert!(refusal(3, 3, 33).contains("1089 threads"));
        assert!(refusal(1, 1 << 30, 1).contains("elements"));
        assert!(refusal(1 << 13, 1 << 13, 32).contains("elements"));
        assert!(validate(Shape::new(u64::MAX, 2), 32).is_err());
    }

    /// gridDim.y stops at 65535: a taller matrix is still transposed
    /// correctly, each block going round the grid-stride loop.
    #[test]
    fn tall_matrices_take_several_rounds() {
        let rows = 2 * 65_535 + 5;
        let input = numbered(Shape::new(rows, 1));
        let run = tiled_transpose(&input, 1, TileLayout::Padded, &BlockOrder::Reverse).unwrap();
        assert_eq!((run.cfg.grid.y, run.cfg.rounds(input.shape())), (65_535, 3));
        assert!(run.output == plain_transpose(&input));
    }

    #[test]
    fn trace_records_every_guarded_access() {
        // 3x11 input: 33 elements stored in phase 0 and loaded in phase 1.
        let run = tiled_transpose(&numbered(Shape::new(3, 11)), 4, TileLayout::Padded, &BlockOrder::Forward).unwrap();
        assert_eq!(run.trace.iter().filter(|a| a.phase == 0).count(), 33);
        assert_eq!(run.trace.iter().filter(|a| a.phase == 1).count(), 33);
    }

    proptest! {
        /// Any shape, any tile width a block can hold, either tile, any block
        /// order: the tiled transpose equals the plain one.
        #[test]
        fn tiled_equals_plain(rows in 1u64..70, cols in 1u64..70, tile in 1u32..=32, padded in any::<bool>(), seed in any::<u64>()) {
            let input = numbered(Shape::new(rows, cols));
            let layout = if padded { TileLayout::Padded } else { TileLayout::Square };
            let run = tiled_transpose(&input, tile, layout, &BlockOrder::Shuffled(seed)).unwrap();
            prop_assert_eq!(run.output, plain_transpose(&input));
        }

        /// Padding a 32-wide tile removes every conflict of the column read,
        /// whatever the shape.
        #[test]
        fn padding_always_resolves(rows in 1u64..80, cols in 1u64..80) {
            let [_, load] = bank_figures(Shape::new(rows, cols), TILE, TileLayout::Padded, &quiet()).unwrap();
            prop_assert_eq!(load.degree, (1, 1));
        }
    }
}
