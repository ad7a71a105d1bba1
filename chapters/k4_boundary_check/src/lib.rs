//! Appendix K.4: a 2D bounds check that guards only one of its two axes.
//!
//! A fill kernel that checks `row < rows` but forgets `col < cols` lets the
//! threads past the last column write into the next row (and, from the last
//! row, past the end of the buffer). Which of those stray stores survive
//! depends on the order in which blocks run, an order CUDA never promises.
//! The simulator runs the kernels through [`ktrav::sim`] in chosen orders,
//! with a padding row of sentinels after the matrix so that stores past the
//! end are counted instead of being undefined behaviour.
//!
//! The file reads top to bottom: the CPU reference (what every cell should
//! hold, and the padded buffer the kernels write), the kernel twins, the
//! launch plan shared by the simulator and [`gpu`], the exploration of block
//! orders, and the printed reports.

pub mod exercises;
pub mod figures;
pub mod gpu;
pub mod values;

use anyhow::{bail, Context, Result};
use ktrav::{BlockOrder, Dim2, GeometryError, LaunchConfig, Shape, Thread};
use ktrav_term::report::{self, join, Report};
use std::collections::BTreeMap;

// --- 1. CPU reference --------------------------------------------------------

/// What the padding holds before a launch. No kernel of this chapter
/// writes it on purpose, so a padding cell that differs was hit by a stray store.
pub const SENTINEL: f32 = -999.0;

/// The widest matrix the fill experiments accept: the marker
/// `row * 1000 + col` is different for every cell only while `cols < 1000`
/// (with exactly 1000 columns a thread's overflow marker equals the marker of
/// the cell it lands on, and the bug would be invisible).
pub const MAX_COLS: u64 = 999;

// ANCHOR: store
/// One store to global memory, `out[index] = value`, as the padded buffer
/// logs it, so the simulator can see who wrote where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Store {
    pub index: u64,
    pub value: f32,
}

/// The value the fill kernels write to `(row, col)`.
pub fn marker(row: u64, col: u64) -> f32 {
    (row * 1000 + col) as f32
}
// ANCHOR_END: store

/// The two inputs of the addition: exact small integers, different per cell.
pub fn add_a(row: u64, col: u64) -> f32 {
    (row * 1000 + col) as f32
}
pub fn add_b(row: u64, col: u64) -> f32 {
    (3 * row + 7 * col) as f32
}

// ANCHOR: buffer
/// A device buffer as the simulator holds it: the `rows x cols` row-major
/// matrix the kernel was given, then whole padding rows of [`SENTINEL`].
/// It remembers which thread stored last to each cell.
#[derive(Clone, Debug)]
pub struct PaddedBuffer {
    shape: Shape,
    data: Vec<f32>,
    /// The global `(row, col)` of the thread that stored last to each cell.
    last_writer: Vec<Option<(u64, u64)>>,
    /// Every store, in the order it happened, with its thread's `(row, col)`.
    log: Vec<((u64, u64), Store)>,
}

impl PaddedBuffer {
    /// The matrix of `plan` filled with `fill(row, col)`, followed by the
    /// plan's padding rows of [`SENTINEL`].
    pub fn new(plan: &LaunchPlan, mut fill: impl FnMut(u64, u64) -> f32) -> Self {
        let (cells, cols) = (plan.shape.elements(), plan.shape.cols);
        let len = plan.buffer_len() as usize;
        let data = (0..len as u64).map(|i| if i < cells { fill(i / cols, i % cols) } else { SENTINEL }).collect();
        PaddedBuffer { shape: plan.shape, data, last_writer: vec![None; len], log: Vec::new() }
    }

    /// Applies `out[index] = value`, made by thread `t`.
    ///
    /// # Panics
    /// Panics if the store lands beyond the padding: on a GPU that would be
    /// a write to memory nobody allocated, so the padding was sized wrong.
    pub fn store(&mut self, t: Thread, index: u64, value: f32) {
        let i = index as usize;
        assert!(i < self.data.len(), "store to element {i} is past the padding ({} elements)", self.data.len());
        let by = (t.global_y(), t.global_x());
        self.data[i] = value;
        self.last_writer[i] = Some(by);
        self.log.push((by, Store { index, value }));
    }

    /// The whole buffer, padding included.
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }

    /// Element `(row, col)`; rows at or past `rows` are padding.
    pub fn get(&self, row: u64, col: u64) -> f32 {
        self.data[(row * self.shape.cols + col) as usize]
    }

    /// The thread that stored last to `(row, col)`, if any did.
    pub fn last_writer(&self, row: u64, col: u64) -> Option<(u64, u64)> {
        self.last_writer[(row * self.shape.cols + col) as usize]
    }

    /// The padding cells, after the matrix.
    pub fn padding(&self) -> &[f32] {
        &self.data[self.shape.elements() as usize..]
    }

    /// Padding cells that no longer hold the sentinel.
    pub fn padding_overwritten(&self) -> u64 {
        self.padding().iter().filter(|&&v| v != SENTINEL).count() as u64
    }

    /// Every store, in the order the launch made them.
    pub fn log(&self) -> &[((u64, u64), Store)] {
        &self.log
    }
}
// ANCHOR_END: buffer

// --- 2. Kernel twins: kernels/k4_boundary_check.cu, line for line ------------

// ANCHOR: kernels
/// `fill_checked` in `kernels/k4_boundary_check.cu`.
pub fn fill_checked(t: Thread, out: &mut PaddedBuffer, rows: u64, cols: u64) {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row < rows && col < cols {
        // both axes guarded
        out.store(t, row * cols + col, marker(row, col));
    }
}

/// `fill_row_only_checked`: the same body with half of the guard missing.
pub fn fill_row_only_checked(t: Thread, out: &mut PaddedBuffer, rows: u64, cols: u64) {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row < rows {
        // BUG: row guarded, col free to pass the edge
        out.store(t, row * cols + col, marker(row, col));
    }
}

/// `add_row_only_checked`: element-wise `out = a + b` with the same bug.
pub fn add_row_only_checked(t: Thread, out: &mut PaddedBuffer, a: &[f32], b: &[f32], rows: u64, cols: u64) {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row < rows {
        // BUG: row guarded, col free to pass the edge
        let i = row * cols + col; // one flat index for all three arrays
        out.store(t, i, a[i as usize] + b[i as usize]);
    }
}

/// `add_checked`: the addition with both axes guarded (the lab's `add`).
pub fn add_checked(t: Thread, out: &mut PaddedBuffer, a: &[f32], b: &[f32], rows: u64, cols: u64) {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row < rows && col < cols {
        // both axes guarded
        let i = row * cols + col;
        out.store(t, i, a[i as usize] + b[i as usize]);
    }
}
// ANCHOR_END: kernels

// --- 3. Launch plan: the one launch of all four kernels ----------------------

// ANCHOR: plan
/// How every kernel of the chapter is launched (all four alike): x over
/// columns, `gridDim = (ceil(cols / blockDim.x), ceil(rows / blockDim.y))`,
/// no shared memory, into a buffer with whole padding rows after the matrix.
/// The simulator and the GPU section both launch from this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchPlan {
    pub shape: Shape,
    pub cfg: LaunchConfig,
    /// Padding rows that catch every stray store: the last row's threads
    /// reach `threads_x - cols` cells past the end of the matrix.
    pub padding_rows: u64,
}

/// The launch of `fill_checked`, `fill_row_only_checked`,
/// `add_row_only_checked` and `add_checked` on a `shape` matrix with
/// `block`-shaped blocks.
pub fn launch_plan(shape: Shape, block: Dim2) -> Result<LaunchPlan, GeometryError> {
    let cfg = LaunchConfig::covering(shape, block)?;
    let padding_rows = ktrav::ceil_div(cfg.waste(shape).x, shape.cols).max(1);
    Ok(LaunchPlan { shape, cfg, padding_rows })
}

impl LaunchPlan {
    /// Columns past the last real column that every row's threads still store to.
    pub fn overflow(&self) -> u64 {
        self.cfg.waste(self.shape).x
    }

    /// Elements of the buffer: the matrix, then the padding rows.
    pub fn buffer_len(&self) -> u64 {
        (self.shape.rows + self.padding_rows) * self.shape.cols
    }
}

/// Runs `kernel` over the plan's grid with blocks in `order`, storing into `out`.
pub fn run(plan: &LaunchPlan, order: &BlockOrder, out: &mut PaddedBuffer, kernel: impl Fn(Thread, &mut PaddedBuffer)) {
    ktrav::launch(&plan.cfg, order, |t| kernel(t, out));
}
// ANCHOR_END: plan

// --- 4. Exploration: the kernels under many block orders ---------------------

/// What a launch left behind, compared with what the matrix should hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// Real rows with at least one wrong cell.
    pub wrong_rows: Vec<u64>,
    /// Real cells that hold the wrong value.
    pub wrong_cells: u64,
    /// Padding cells that no longer hold the sentinel.
    pub padding_overwritten: u64,
}

impl Damage {
    pub fn of(out: &PaddedBuffer, expected: impl Fn(u64, u64) -> f32) -> Self {
        let mut wrong_rows = Vec::new();
        let mut wrong_cells = 0;
        for r in 0..out.shape.rows {
            let wrong = (0..out.shape.cols).filter(|&c| out.get(r, c) != expected(r, c)).count() as u64;
            if wrong > 0 {
                wrong_rows.push(r);
            }
            wrong_cells += wrong;
        }
        Damage { wrong_rows, wrong_cells, padding_overwritten: out.padding_overwritten() }
    }
}

/// Which fill kernel to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Checked,
    RowOnly,
}

/// Runs one fill kernel on a fresh padded buffer (zeros in the matrix).
pub fn run_fill(plan: &LaunchPlan, order: &BlockOrder, fill: Fill) -> PaddedBuffer {
    let (rows, cols) = (plan.shape.rows, plan.shape.cols);
    let mut out = PaddedBuffer::new(plan, |_, _| 0.0);
    match fill {
        Fill::Checked => run(plan, order, &mut out, |t, out| fill_checked(t, out, rows, cols)),
        Fill::RowOnly => run(plan, order, &mut out, |t, out| fill_row_only_checked(t, out, rows, cols)),
    }
    out
}

/// Runs the row-only-checked addition. `a` and `b` get the same padding as
/// `out`, because the last row's stray threads read past their end too.
pub fn run_add(plan: &LaunchPlan, order: &BlockOrder) -> PaddedBuffer {
    let (rows, cols) = (plan.shape.rows, plan.shape.cols);
    let a = PaddedBuffer::new(plan, add_a);
    let b = PaddedBuffer::new(plan, add_b);
    let mut out = PaddedBuffer::new(plan, |_, _| 0.0);
    run(plan, order, &mut out, |t, out| add_row_only_checked(t, out, a.as_slice(), b.as_slice(), rows, cols));
    out
}

// ANCHOR: orders
/// Every ordering of a grid's block rows, in lexicographic order. Within a
/// block row the blocks keep their `blockIdx.x` order.
pub fn block_row_orders(grid: Dim2) -> Vec<Vec<u32>> {
    let mut perm: Vec<u32> = (0..grid.y).collect();
    let mut all = vec![perm.clone()];
    // Next permutation: find the last ascent, swap in the next larger
    // element from the tail, reverse the tail.
    while let Some(i) = (0..perm.len().saturating_sub(1)).rev().find(|&i| perm[i] < perm[i + 1]) {
        let j = (i + 1..perm.len()).rev().find(|&j| perm[j] > perm[i]).unwrap();
        perm.swap(i, j);
        perm[i + 1..].reverse();
        all.push(perm.clone());
    }
    all
}

/// The block order that runs whole block rows in `rows_order`.
pub fn by_block_rows(grid: Dim2, rows_order: &[u32]) -> BlockOrder {
    let ids =
        rows_order.iter().flat_map(|&by| (0..grid.x as u64).map(move |bx| by as u64 * grid.x as u64 + bx)).collect();
    BlockOrder::Explicit(ids)
}

/// How many orders left how many rows wrong: `wrong rows -> (orders, first
/// order seen)`, plus the padding counts seen (a set, to show they never vary).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcomes<K> {
    pub by_wrong_rows: BTreeMap<u64, (u64, K)>,
    pub padding_counts: BTreeMap<u64, u64>,
    pub runs: u64,
}

impl<K: Clone> Outcomes<K> {
    pub fn add(&mut self, key: K, damage: &Damage) {
        let entry = self.by_wrong_rows.entry(damage.wrong_rows.len() as u64).or_insert((0, key));
        entry.0 += 1;
        *self.padding_counts.entry(damage.padding_overwritten).or_insert(0) += 1;
        self.runs += 1;
    }
}

impl<K: Clone> FromIterator<(K, Damage)> for Outcomes<K> {
    fn from_iter<I: IntoIterator<Item = (K, Damage)>>(runs: I) -> Self {
        let mut out = Outcomes { by_wrong_rows: BTreeMap::new(), padding_counts: BTreeMap::new(), runs: 0 };
        for (key, damage) in runs {
            out.add(key, &damage);
        }
        out
    }
}

/// The row-only fill under every order of the block rows, one run at a time.
pub fn block_row_runs(plan: &LaunchPlan) -> impl Iterator<Item = (Vec<u32>, Damage)> + '_ {
    block_row_orders(plan.cfg.grid).into_iter().map(move |perm| {
        let buf = run_fill(plan, &by_block_rows(plan.cfg.grid, &perm), Fill::RowOnly);
        (perm, Damage::of(&buf, marker))
    })
}

/// The row-only fill under `shuffles` seeded shuffles of all blocks, seeds
/// `first_seed, first_seed + 1, ...` (wrapping past 2^64 - 1), one run at a time.
pub fn shuffle_runs(plan: &LaunchPlan, first_seed: u64, shuffles: u64) -> impl Iterator<Item = (u64, Damage)> + '_ {
    (0..shuffles).map(move |i| {
        let seed = first_seed.wrapping_add(i);
        (seed, Damage::of(&run_fill(plan, &BlockOrder::Shuffled(seed), Fill::RowOnly), marker))
    })
}

/// The row-only fill under every order of the block rows.
pub fn explore_block_rows(plan: &LaunchPlan) -> Outcomes<Vec<u32>> {
    block_row_runs(plan).collect()
}

/// The row-only fill under `shuffles` seeded shuffles of all blocks.
pub fn explore_shuffles(plan: &LaunchPlan, first_seed: u64, shuffles: u64) -> Outcomes<u64> {
    shuffle_runs(plan, first_seed, shuffles).collect()
}
// ANCHOR_END: orders

/// The `blockIdx.y` values in the order a block order first reaches them.
pub fn block_row_sequence(cfg: &LaunchConfig, order: &BlockOrder) -> Vec<u64> {
    let mut seen = Vec::new();
    for id in order.sequence(cfg.blocks()) {
        let by = id / cfg.grid.x as u64;
        if !seen.contains(&by) {
            seen.push(by);
        }
    }
    seen
}

/// The source's case: a 4x10 matrix under 4x1 blocks.
pub const SOURCE_SHAPE: Shape = Shape::new(4, 10);
pub const SOURCE_BLOCK: Dim2 = Dim2::new(4, 1);

/// The larger case for the shuffles: 24x100 under 16x4 blocks.
pub const LARGE_SHAPE: Shape = Shape::new(24, 100);
pub const LARGE_BLOCK: Dim2 = Dim2::new(16, 4);
pub const LARGE_SHUFFLES: u64 = 1000;

fn source_plan() -> LaunchPlan {
    launch_plan(SOURCE_SHAPE, SOURCE_BLOCK).expect("the source's launch is valid")
}

/// Block rows up to which a custom experiment tries every order (8! = 40320).
pub const MAX_ENUMERATED_BLOCK_ROWS: u32 = 8;
/// The most thread bodies a custom experiment may simulate: about half a
/// minute on one laptop core in a release build (some 10 million a second),
/// and a few hundred megabytes at most, since one launch is held at a time.
pub const MAX_SIMULATED_THREADS: u64 = 1 << 28;
/// Experiments of at least this many thread bodies show a progress bar
/// (on a terminal): about a second of work.
pub const PROGRESS_FROM: u64 = 1 << 24;

/// The launch of a custom experiment, or why there is none.
pub fn experiment_plan(shape: Shape, block: Dim2) -> Result<LaunchPlan> {
    if shape.cols > MAX_COLS {
        bail!("{} columns: the row*1000+col marker is unique per cell only below 1000 columns", shape.cols);
    }
    launch_plan(shape, block).with_context(|| format!("no launch of {block} blocks covers a {shape} matrix"))
}

/// Orders of the block rows a custom experiment tries: all of them, when
/// there are at most [`MAX_ENUMERATED_BLOCK_ROWS`] block rows.
fn enumerated_orders(plan: &LaunchPlan) -> u64 {
    if plan.cfg.grid.y <= MAX_ENUMERATED_BLOCK_ROWS {
        (1..=plan.cfg.grid.y as u64).product()
    } else {
        0
    }
}

/// The thread bodies a custom experiment simulates (`None` past 2^64):
/// every launched thread, for the checked run, the forward and reverse runs,
/// every enumerated order and every shuffle.
pub fn experiment_work(plan: &LaunchPlan, shuffles: u64) -> Option<u64> {
    let runs = 3u64.checked_add(enumerated_orders(plan))?.checked_add(shuffles)?;
    plan.cfg.total_threads().checked_mul(runs)
}

// --- 5. Report ---------------------------------------------------------------

/// What the worked example runs: the fully checked fill, and the row-only
/// fill with the block rows forward and in reverse.
struct WorkedRuns {
    plan: LaunchPlan,
    checked: Damage,
    reverse: PaddedBuffer,
    forward_damage: Damage,
    reverse_damage: Damage,
}

impl WorkedRuns {
    fn compute() -> Self {
        let plan = source_plan();
        let checked = Damage::of(&run_fill(&plan, &BlockOrder::Forward, Fill::Checked), marker);
        let forward = run_fill(&plan, &BlockOrder::Forward, Fill::RowOnly);
        let reverse = run_fill(&plan, &BlockOrder::Reverse, Fill::RowOnly);
        let (forward_damage, reverse_damage) = (Damage::of(&forward, marker), Damage::of(&reverse, marker));
        WorkedRuns { plan, checked, reverse, forward_damage, reverse_damage }
    }

    /// Every cell of the checked fill holds its marker, nothing past the end.
    fn checked_exact(&self) -> bool {
        self.checked.wrong_cells == 0 && self.checked.padding_overwritten == 0
    }

    /// The row-only fill left what the reasoning predicts: no row wrong
    /// forward, every row below row 0 wrong in reverse, and in both runs the
    /// last row's strays in the padding.
    fn row_only_as_predicted(&self) -> bool {
        let (rows, overflow) = (self.plan.shape.rows, self.plan.overflow());
        self.forward_damage.wrong_rows.is_empty()
            && self.reverse_damage.wrong_rows.len() as u64 == rows - 1
            && self.forward_damage.padding_overwritten == overflow
            && self.reverse_damage.padding_overwritten == overflow
    }

    /// Every count of the worked example is the reasoning's.
    fn as_predicted(&self) -> bool {
        self.checked_exact() && self.row_only_as_predicted()
    }
}

/// The worked example: every figure of the source's K.4 output.
pub fn worked_example() -> String {
    let runs = WorkedRuns::compute();
    let mut out = Report::new();
    print_launch(&mut out, &runs.plan);
    out.heading("Both axes checked");
    out.line(format!(
        "every cell holds its row*1000+col marker, nothing past the end: {}",
        report::verdict(runs.checked_exact())
    ));
    out.blank();
    print_first_stray(&mut out, &runs.plan);
    print_row_only(&mut out, &runs);
    out.line(format!("every count above is what the reasoning predicts: {}", report::verdict(runs.as_predicted())));
    out.into_string()
}

/// The worked example's heading and launch.
fn print_launch(out: &mut Report, plan: &LaunchPlan) {
    let (rows, cols, cfg) = (plan.shape.rows, plan.shape.cols, plan.cfg);
    let block = cfg.block;
    out.heading(&format!("K.4: a {rows}x{cols} fill with its column check missing"));
    out.blank();
    let across = cfg.grid.x as u64 * block.x as u64;
    let past = match across - cols {
        0 => "none".to_string(),
        n => n.to_string(),
    };
    out.line(format!(
        "the launch: a {}x{} grid of {}x{}-thread blocks puts {across} threads across {cols} columns, so {past} in each row fall past the last column",
        cfg.grid.x, cfg.grid.y, block.x, block.y,
    ));
    out.blank();
}

/// Where the first stray thread stores, in the fill and in the addition.
fn print_first_stray(out: &mut Report, plan: &LaunchPlan) {
    let cols = plan.shape.cols;
    out.heading("The first stray thread, in a fill and in an addition");
    let (r, c) = (0, cols); // the first thread past the end of row 0
    let flat = r * cols + c;
    let (r2, c2) = (flat / cols, flat % cols);
    out.line(format!(
        "thread (row {r}, col {c}) is past the last column; its flat index {r}*{cols}+{c} = {flat} is cell (row {r2}, col {c2})"
    ));
    out.line(format!(
        "  the fill stores the thread's own marker, {r}*1000+{c} = {}, where the cell needs {}",
        marker(r, c),
        marker(r2, c2)
    ));
    out.line(format!(
        "  the addition stores a[{flat}] + b[{flat}] = a({r2},{c2}) + b({r2},{c2}), the sum the cell needs"
    ));
    out.line("every stray inside the matrix does the same: a wrong value in the fill, the right one in the addition");
    out.blank();
}

/// The row-only fill in both block orders: the counts, then column 0 of
/// each row after the reverse run.
fn print_row_only(out: &mut Report, runs: &WorkedRuns) {
    let (rows, cfg) = (runs.plan.shape.rows, runs.plan.cfg);
    out.heading("Only the row checked");
    let overflow = runs.plan.overflow();
    out.line(format!("columns past the last real column that every row still stores to: {overflow}"));
    out.blank();
    let mut table =
        vec![["order of blockIdx.y", "rows below row 0 wrong", "padding cells overwritten"].map(String::from)];
    for (name, order, d) in
        [("forward", BlockOrder::Forward, &runs.forward_damage), ("reverse", BlockOrder::Reverse, &runs.reverse_damage)]
    {
        table.push([
            format!("{} ({name})", join(block_row_sequence(&cfg, &order), ", ")),
            format!("{} of {}", d.wrong_rows.len(), rows - 1),
            d.padding_overwritten.to_string(),
        ]);
    }
    let width = |i: usize| table.iter().map(|row| row[i].len()).max().unwrap_or(0);
    let (w0, w1) = (width(0), width(1));
    for [order, wrong, padding] in &table {
        out.line(format!("{order:<w0$}  {wrong:<w1$}  {padding}"));
    }
    out.blank();
    out.line("column 0 of each row after the reverse run:");
    let rev = &runs.reverse;
    for r in 0..rows {
        let (got, want) = (rev.get(r, 0), marker(r, 0));
        let verdict = if got == want {
            report::flag(true, "right")
        } else {
            let (wr, wc) = rev.last_writer(r, 0).expect("a wrong cell was stored to");
            format!("{}: thread (row {wr}, col {wc}) stored last", report::flag(false, "wrong"))
        };
        out.line(format!("  cell ({r}, 0) = {got}, its marker {want}: {verdict}"));
    }
    out.blank();
    out.line(format!(
        "in both runs the padding count is the last row's {overflow} strays, stored past the end of the matrix"
    ));
}

/// The addition, actually run with the same one-axis check.
pub fn addition_report() -> String {
    let plan = source_plan();
    let (rows, cols, cfg) = (plan.shape.rows, plan.shape.cols, plan.cfg);
    let expected = |r, c| add_a(r, c) + add_b(r, c);
    let mut out = Report::new();
    out.heading("The addition, run with only the row checked");
    out.line(format!(
        "a(r,c) = r*1000 + c, b(r,c) = 3*r + 7*c, on the same {rows}x{cols} matrix and {}x{} blocks",
        cfg.block.x, cfg.block.y
    ));
    let cells = plan.shape.elements();
    for (name, order) in [("forward", BlockOrder::Forward), ("in reverse", BlockOrder::Reverse)] {
        let buf = run_add(&plan, &order);
        let d = Damage::of(&buf, expected);
        let stray_last = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter(|&(r, c)| buf.last_writer(r, c).is_some_and(|(_, wc)| wc >= cols))
            .count();
        out.line(format!(
            "blocks run {name}: {} of {cells} cells equal a+b, {stray_last} of them last stored by a stray thread, {} padding cells overwritten",
            cells - d.wrong_cells,
            d.padding_overwritten
        ));
    }
    let buf = run_add(&plan, &BlockOrder::Reverse);
    let (inside, past): (Vec<_>, Vec<_>) =
        buf.log().iter().filter(|((_, wc), _)| *wc >= cols).partition(|(_, s)| s.index < cells);
    let inside_right = inside.iter().all(|(_, s)| s.value == expected(s.index / cols, s.index % cols));
    out.line(format!(
        "stray stores inside the matrix: {}, each storing the value its cell should hold: {}",
        inside.len(),
        report::verdict(inside_right)
    ));
    let past_values: std::collections::BTreeSet<String> = past.iter().map(|(_, s)| s.value.to_string()).collect();
    out.line(format!(
        "stray stores past the last row: {}, storing {} (a sentinel read from a plus one read from b)",
        past.len(),
        join(past_values, ", ")
    ));
    let mut all_right = 0;
    let mut pads = BTreeMap::new();
    let orders = block_row_orders(cfg.grid);
    for perm in &orders {
        let d = Damage::of(&run_add(&plan, &by_block_rows(cfg.grid, perm)), expected);
        all_right += (d.wrong_cells == 0) as u64;
        *pads.entry(d.padding_overwritten).or_insert(0u64) += 1;
    }
    out.line(format!(
        "all {} orders of the block rows: every cell right in {all_right}; padding cells overwritten: {}",
        orders.len(),
        padding_summary(&pads)
    ));
    out.into_string()
}

fn padding_summary(pads: &BTreeMap<u64, u64>) -> String {
    join(pads.iter().map(|(cells, runs)| format!("{cells} in {runs}")), ", ")
}

fn outcome_table<K>(out: &mut Report, o: &Outcomes<K>, example: impl Fn(&K) -> String, example_head: &str) {
    out.line(format!("  rows wrong   orders   {example_head}"));
    for (wrong, (count, key)) in &o.by_wrong_rows {
        out.line(format!("  {wrong:>10}   {count:>6}   {}", example(key)));
    }
}

/// Beyond the source: the whole distribution over block orders.
pub fn orders_report() -> String {
    let mut out = Report::new();
    let plan = source_plan();
    let (rows, cols, cfg) = (plan.shape.rows, plan.shape.cols, plan.cfg);
    let small = explore_block_rows(&plan);
    out.heading(&format!(
        "Every order of the {} block rows: {rows}x{cols} matrix, {}x{} blocks",
        cfg.grid.y, cfg.block.x, cfg.block.y
    ));
    outcome_table(&mut out, &small, |p| join(p.iter(), " "), "first such order of blockIdx.y");
    out.line(format!(
        "{} orders, {} different numbers of wrong rows; padding cells overwritten: {}",
        small.runs,
        small.by_wrong_rows.len(),
        padding_summary(&small.padding_counts)
    ));
    out.blank();

    let big = launch_plan(LARGE_SHAPE, LARGE_BLOCK).expect("the large launch is valid");
    let (big_rows, big_cols) = (LARGE_SHAPE.rows, LARGE_SHAPE.cols);
    let shuffled = explore_shuffles(&big, 0, LARGE_SHUFFLES);
    out.heading(&format!(
        "{LARGE_SHUFFLES} seeded shuffles of all {} blocks: {big_rows}x{big_cols} matrix, {}x{} blocks",
        big.cfg.blocks(),
        big.cfg.block.x,
        big.cfg.block.y
    ));
    outcome_table(&mut out, &shuffled, |s| s.to_string(), "first seed");
    let (lo, hi) = (shuffled.by_wrong_rows.keys().next().unwrap(), shuffled.by_wrong_rows.keys().last().unwrap());
    out.line(format!(
        "{} different numbers of wrong rows, from {lo} to {hi} of {} rows below row 0; padding cells overwritten: {}",
        shuffled.by_wrong_rows.len(),
        big_rows - 1,
        padding_summary(&shuffled.padding_counts)
    ));
    let checked_ok = (0..LARGE_SHUFFLES).all(|seed| {
        let d = Damage::of(&run_fill(&big, &BlockOrder::Shuffled(seed), Fill::Checked), marker);
        d.wrong_cells == 0 && d.padding_overwritten == 0
    });
    out.line(format!(
        "the fully checked kernel is exact under the same {LARGE_SHUFFLES} shuffles: {}",
        report::verdict(checked_ok)
    ));
    out.into_string()
}

/// A custom experiment: both fill kernels and the order distribution, with
/// a progress bar on a terminal when it is long (see [`PROGRESS_FROM`]).
/// Check [`experiment_work`] against a limit first.
pub fn experiment_report(plan: &LaunchPlan, shuffles: u64, seed: u64) -> String {
    let (rows, cols, cfg) = (plan.shape.rows, plan.shape.cols, &plan.cfg);
    let threads = cfg.total_threads();
    let work = experiment_work(plan, shuffles).unwrap_or(u64::MAX);
    let bar = ktrav_term::progress::bar("simulating block orders", work, PROGRESS_FROM);
    let mut out = Report::new();
    out.line(format!(
        "matrix {rows}x{cols}, blocks of {}, grid {}: {} columns past the last real column in every row",
        cfg.block,
        cfg.grid,
        plan.overflow()
    ));
    let checked = Damage::of(&run_fill(plan, &BlockOrder::Forward, Fill::Checked), marker);
    bar.inc(threads);
    out.line(format!("both axes checked: every cell right: {}", report::verdict(checked.wrong_cells == 0)));
    for (name, order) in [("forward", BlockOrder::Forward), ("in reverse", BlockOrder::Reverse)] {
        let d = Damage::of(&run_fill(plan, &order, Fill::RowOnly), marker);
        bar.inc(threads);
        out.line(format!(
            "row only, blocks run {name}: {} of {} rows below row 0 wrong, {} padding cells overwritten",
            d.wrong_rows.len(),
            rows - 1,
            d.padding_overwritten
        ));
    }
    if enumerated_orders(plan) > 0 {
        let o: Outcomes<_> = block_row_runs(plan).inspect(|_| bar.inc(threads)).collect();
        out.line(format!("every order of the {} block rows ({} orders):", cfg.grid.y, o.runs));
        outcome_table(&mut out, &o, |p| join(p.iter(), " "), "first such order of blockIdx.y");
    } else {
        out.line(format!("{} block rows: too many to try every order", cfg.grid.y));
    }
    if shuffles > 0 {
        let o: Outcomes<_> = shuffle_runs(plan, seed, shuffles).inspect(|_| bar.inc(threads)).collect();
        out.line(format!("{shuffles} seeded shuffles of all {} blocks, seeds from {seed}:", cfg.blocks()));
        outcome_table(&mut out, &o, |s| s.to_string(), "first seed");
        out.line(format!("padding cells overwritten: {}", padding_summary(&o.padding_counts)));
    }
    bar.finish_and_clear();
    out.into_string()
}

/// What the binary prints by default, before the GPU section: the worked
/// example, the addition run and the order distribution.
pub fn report() -> Vec<String> {
    shown_outputs().into_iter().map(|(_, text)| text).collect()
}

/// Every output the K.4 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k4_boundary_check.txt", worked_example()),
        ("k4_boundary_check-addition.txt", addition_report()),
        ("k4_boundary_check-orders.txt", orders_report()),
        ("k4_boundary_check-exercise.txt", exercises::shown()),
        ("k4_boundary_check-add-exercise.txt", exercises::add_shown()),
        ("k4_boundary_check-find-the-bug.txt", exercises::find_the_bug_shown()),
    ]
}

/// K.4 as one value, for its binary, the root runner, the GPU suite and the book.
pub const CHAPTER: ktrav::Chapter = ktrav::Chapter {
    id: "k4_boundary_check",
    section: "K.4",
    title: "A guard on one axis and the race it leaves",
    report,
    shown_outputs,
    figures: figures::figures,
    kernel_source: Some(include_str!("../../../kernels/k4_boundary_check.cu")),
    values: values::values,
    gpu: Some(&gpu::ENTRY),
    exercises: exercises::EXERCISES,
    sim_exercises: exercises::SIM_EXERCISES,
    versions: &[],
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn source_figures() {
        let plan = source_plan();
        assert_eq!(plan.overflow(), 2);
        let fwd = Damage::of(&run_fill(&plan, &BlockOrder::Forward, Fill::RowOnly), marker);
        let rev_buf = run_fill(&plan, &BlockOrder::Reverse, Fill::RowOnly);
        let rev = Damage::of(&rev_buf, marker);
        assert_eq!((fwd.wrong_rows.len(), fwd.padding_overwritten), (0, 2));
        assert_eq!((rev.wrong_rows, rev.padding_overwritten), (vec![1, 2, 3], 2));
        let col0: Vec<f32> = (0..4).map(|r| rev_buf.get(r, 0)).collect();
        assert_eq!(col0, vec![0.0, 10.0, 1010.0, 2010.0]);
        assert_eq!(rev_buf.last_writer(2, 0), Some((1, 10)));
        assert!(plain_contains(&worked_example(), "every count above is what the reasoning predicts: true"));
    }

    fn plain_contains(text: &str, needle: &str) -> bool {
        report::plain(text).contains(needle)
    }

    #[test]
    fn row_orders_are_all_permutations() {
        let orders = block_row_orders(Dim2::new(3, 4));
        assert_eq!(orders.len(), 24);
        let unique: std::collections::BTreeSet<_> = orders.iter().cloned().collect();
        assert_eq!(unique.len(), 24);
        assert_eq!(orders[0], vec![0, 1, 2, 3]);
        assert_eq!(orders[23], vec![3, 2, 1, 0]);
        assert_eq!(block_row_orders(Dim2::new(5, 1)), vec![vec![0]]);
        assert_eq!(by_block_rows(Dim2::new(2, 2), &[1, 0]), BlockOrder::Explicit(vec![2, 3, 0, 1]));
    }

    /// With 4x1 blocks each block row is one matrix row, and row r is wrong
    /// exactly when block row r-1 runs after block row r: the counts are the
    /// Eulerian numbers 1, 11, 11, 1.
    #[test]
    fn small_case_distribution_is_eulerian() {
        let o = explore_block_rows(&source_plan());
        let counts: Vec<(u64, u64)> = o.by_wrong_rows.iter().map(|(k, (n, _))| (*k, *n)).collect();
        assert_eq!(counts, vec![(0, 1), (1, 11), (2, 11), (3, 1)]);
        assert_eq!(o.padding_counts, BTreeMap::from([(2, 24)]));
    }

    #[test]
    fn addition_overflow_is_harmless_inside_the_matrix() {
        let plan = source_plan();
        for perm in block_row_orders(plan.cfg.grid) {
            let buf = run_add(&plan, &by_block_rows(plan.cfg.grid, &perm));
            let d = Damage::of(&buf, |r, c| add_a(r, c) + add_b(r, c));
            assert_eq!((d.wrong_cells, d.padding_overwritten), (0, 2));
            assert!(buf.padding()[..2].iter().all(|&v| v == 2.0 * SENTINEL));
        }
    }

    /// The fully guarded addition stores exactly the matrix's cells, each
    /// its sum, whatever the order of the block rows.
    #[test]
    fn the_checked_addition_is_exact_under_every_order() {
        let plan = source_plan();
        let (rows, cols) = (plan.shape.rows, plan.shape.cols);
        let (a, b) = (PaddedBuffer::new(&plan, add_a), PaddedBuffer::new(&plan, add_b));
        for perm in block_row_orders(plan.cfg.grid) {
            let mut out = PaddedBuffer::new(&plan, |_, _| 0.0);
            run(&plan, &by_block_rows(plan.cfg.grid, &perm), &mut out, |t, out| {
                add_checked(t, out, a.as_slice(), b.as_slice(), rows, cols)
            });
            let d = Damage::of(&out, |r, c| add_a(r, c) + add_b(r, c));
            assert_eq!((d.wrong_cells, d.padding_overwritten, out.log().len() as u64), (0, 0, plan.shape.elements()));
        }
    }

    #[test]
    #[should_panic(expected = "past the padding")]
    fn stores_beyond_the_padding_are_caught() {
        let plan = launch_plan(Shape::new(1, 2), Dim2::new(1, 1)).unwrap();
        let mut b = PaddedBuffer::new(&plan, |_, _| 0.0);
        let t = Thread {
            block_idx: Dim2::new(0, 0),
            thread_idx: Dim2::new(0, 0),
            block_dim: Dim2::new(1, 1),
            grid_dim: Dim2::new(2, 1),
        };
        b.store(t, 4, 1.0);
    }

    #[test]
    fn custom_inputs_are_validated() {
        assert!(experiment_plan(Shape::new(4, 1000), SOURCE_BLOCK).unwrap_err().to_string().contains("1000"));
        assert!(format!("{:#}", experiment_plan(Shape::new(4, 10), Dim2::new(64, 32)).unwrap_err()).contains("2048"));
        let big = experiment_plan(Shape::new(4096, 999), Dim2::new(32, 1)).unwrap();
        assert!(experiment_work(&big, 200).unwrap() > MAX_SIMULATED_THREADS);
        let small = experiment_plan(SOURCE_SHAPE, SOURCE_BLOCK).unwrap();
        // 12x4 threads, for 3 fixed runs, 4! orders of the block rows and 10 shuffles.
        assert_eq!(experiment_work(&small, 10), Some(48 * (3 + 24 + 10)));
        assert_eq!(experiment_work(&small, u64::MAX), None);
    }

    #[test]
    fn seeds_wrap_instead_of_overflowing() {
        let seeds: Vec<u64> = shuffle_runs(&source_plan(), u64::MAX, 2).map(|(s, _)| s).collect();
        assert_eq!(seeds, vec![u64::MAX, 0]);
    }

    proptest! {
        /// Whatever the shape, block and order: the checked kernel is exact;
        /// the row-only kernel damages the padding by exactly the last row's
        /// overflow, never row 0, and every wrong cell was last stored by a
        /// thread past the edge of its own row.
        #[test]
        fn one_axis_bug_invariants(
            rows in 1u64..20, cols in 1u64..40, bx in 1u32..40, by in 1u32..6, seed in any::<u64>()
        ) {
            let plan = launch_plan(Shape::new(rows, cols), Dim2::new(bx, by)).unwrap();
            let order = BlockOrder::Shuffled(seed);
            let ok = Damage::of(&run_fill(&plan, &order, Fill::Checked), marker);
            prop_assert_eq!((ok.wrong_cells, ok.padding_overwritten), (0, 0));
            let buf = run_fill(&plan, &order, Fill::RowOnly);
            let d = Damage::of(&buf, marker);
            prop_assert_eq!(d.padding_overwritten, plan.overflow());
            prop_assert!(!d.wrong_rows.contains(&0));
            for &r in &d.wrong_rows {
                for c in 0..cols {
                    if buf.get(r, c) != marker(r, c) {
                        let (_, wc) = buf.last_writer(r, c).unwrap();
                        prop_assert!(wc >= cols);
                    }
                }
            }
            // Forward order heals when every stray's target row is owned by
            // a later block row (one matrix row per block row), or by a later
            // threadIdx.y of the same block (one block across).
            if by == 1 || plan.cfg.grid.x == 1 {
                let f = Damage::of(&run_fill(&plan, &BlockOrder::Forward, Fill::RowOnly), marker);
                prop_assert!(f.wrong_rows.is_empty());
            }
        }
    }
}
