//! Appendix K.4: a 2D bounds check that guards only one of its two axes.
//!
//! A fill kernel that checks `row < rows` but forgets `col < cols` lets the
//! threads past the last column write into the next row (and, from the last
//! row, past the end of the buffer). Which of those stray stores survive
//! depends on the order in which blocks run, an order CUDA never promises.
//! The simulator runs the kernels through [`ktrav::sim`] in chosen orders,
//! with a padding row of sentinels after the matrix so that stores past the
//! end are counted instead of being undefined behaviour.

pub mod figures;
pub mod gpu;

use ktrav::report::{self, Report};
use ktrav::{BlockOrder, Dim2, LaunchConfig, Thread};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What the padding holds before a launch. No kernel of this chapter
/// writes it on purpose, so a padding cell that differs was hit by a stray store.
pub const SENTINEL: f32 = -999.0;

/// The widest matrix the fill experiments accept: the marker
/// `row * 1000 + col` is different for every cell only while `cols < 1000`
/// (with exactly 1000 columns a thread's overflow marker equals the marker of
/// the cell it lands on, and the bug would be invisible).
pub const MAX_COLS: u64 = 999;

// ANCHOR: store
/// One store to global memory, `out[index] = value`: what a kernel body
/// returns, so the simulator can apply it and see who wrote where.
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

// ANCHOR: kernels
/// `fill_checked` in `kernels/k4_boundary_check.cu`.
pub fn fill_checked(t: Thread, rows: u64, cols: u64) -> Option<Store> {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row < rows && col < cols {
        // both axes guarded
        return Some(Store { index: row * cols + col, value: marker(row, col) });
    }
    None
}

/// `fill_row_only_checked`: the same body with half of the guard missing.
pub fn fill_row_only_checked(t: Thread, rows: u64, cols: u64) -> Option<Store> {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row < rows {
        // BUG: col is never compared with cols
        return Some(Store { index: row * cols + col, value: marker(row, col) });
    }
    None
}

/// `add_row_only_checked`: element-wise `out = a + b` with the same bug.
pub fn add_row_only_checked(t: Thread, a: &[f32], b: &[f32], rows: u64, cols: u64) -> Option<Store> {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row < rows {
        // BUG: col is never compared with cols
        let i = row * cols + col; // one flat index for all three arrays
        return Some(Store { index: i, value: a[i as usize] + b[i as usize] });
    }
    None
}
// ANCHOR_END: kernels

// ANCHOR: buffer
/// A device buffer as the simulator holds it: the `rows x cols` row-major
/// matrix the kernel was given, then whole padding rows of [`SENTINEL`].
/// It remembers which thread stored last to each cell.
#[derive(Clone, Debug)]
pub struct PaddedBuffer {
    rows: u64,
    cols: u64,
    data: Vec<f32>,
    /// The global `(row, col)` of the thread that stored last to each cell.
    last_writer: Vec<Option<(u64, u64)>>,
    /// Every store, in the order it happened, with its thread's `(row, col)`.
    log: Vec<((u64, u64), Store)>,
}

/// Padding rows needed to catch every stray store of a launch: the last row's
/// threads reach `threads_x - cols` cells past the end of the matrix.
pub fn padding_rows(cfg: &LaunchConfig, cols: u64) -> u64 {
    ktrav::ceil_div(cfg.waste(cols, 0).x, cols).max(1)
}

impl PaddedBuffer {
    /// A `rows x cols` matrix of `fill(row, col)` followed by
    /// `padding_rows` rows of [`SENTINEL`].
    pub fn new(rows: u64, cols: u64, padding_rows: u64, mut fill: impl FnMut(u64, u64) -> f32) -> Self {
        let len = ((rows + padding_rows) * cols) as usize;
        let data = (0..len as u64)
            .map(|i| if i < rows * cols { fill(i / cols, i % cols) } else { SENTINEL })
            .collect();
        PaddedBuffer { rows, cols, data, last_writer: vec![None; len], log: Vec::new() }
    }

    /// Applies one store made by the thread at global `(row, col)`.
    ///
    /// # Panics
    /// Panics if the store lands beyond the padding: on a GPU that would be
    /// a write to memory nobody allocated, so the padding was sized wrong.
    pub fn store(&mut self, by: (u64, u64), s: Store) {
        let i = s.index as usize;
        assert!(i < self.data.len(), "store to element {i} is past the padding ({} elements)", self.data.len());
        self.data[i] = s.value;
        self.last_writer[i] = Some(by);
        self.log.push((by, s));
    }

    /// The whole buffer, padding included.
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }

    /// Element `(row, col)`; rows at or past `rows` are padding.
    pub fn get(&self, row: u64, col: u64) -> f32 {
        self.data[(row * self.cols + col) as usize]
    }

    /// The thread that stored last to `(row, col)`, if any did.
    pub fn last_writer(&self, row: u64, col: u64) -> Option<(u64, u64)> {
        self.last_writer[(row * self.cols + col) as usize]
    }

    /// The padding cells, after the matrix.
    pub fn padding(&self) -> &[f32] {
        &self.data[(self.rows * self.cols) as usize..]
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

/// Runs `kernel` over the grid with blocks in `order`, applying each store.
pub fn run(cfg: &LaunchConfig, order: &BlockOrder, out: &mut PaddedBuffer, kernel: impl Fn(Thread) -> Option<Store>) {
    ktrav::launch(cfg, order, |t| {
        if let Some(s) = kernel(t) {
            out.store((t.global_y(), t.global_x()), s);
        }
    });
}
// ANCHOR_END: buffer

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
        for r in 0..out.rows {
            let wrong = (0..out.cols).filter(|&c| out.get(r, c) != expected(r, c)).count() as u64;
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
pub fn run_fill(cfg: &LaunchConfig, rows: u64, cols: u64, order: &BlockOrder, fill: Fill) -> PaddedBuffer {
    let mut out = PaddedBuffer::new(rows, cols, padding_rows(cfg, cols), |_, _| 0.0);
    match fill {
        Fill::Checked => run(cfg, order, &mut out, |t| fill_checked(t, rows, cols)),
        Fill::RowOnly => run(cfg, order, &mut out, |t| fill_row_only_checked(t, rows, cols)),
    }
    out
}

/// The two inputs of the addition: exact small integers, different per cell.
pub fn add_a(row: u64, col: u64) -> f32 {
    (row * 1000 + col) as f32
}
pub fn add_b(row: u64, col: u64) -> f32 {
    (3 * row + 7 * col) as f32
}

/// Runs the row-only-checked addition. `a` and `b` get the same padding as
/// `out`, because the last row's stray threads read past their end too.
pub fn run_add(cfg: &LaunchConfig, rows: u64, cols: u64, order: &BlockOrder) -> PaddedBuffer {
    let pad = padding_rows(cfg, cols);
    let a = PaddedBuffer::new(rows, cols, pad, add_a);
    let b = PaddedBuffer::new(rows, cols, pad, add_b);
    let mut out = PaddedBuffer::new(rows, cols, pad, |_, _| 0.0);
    run(cfg, order, &mut out, |t| add_row_only_checked(t, a.as_slice(), b.as_slice(), rows, cols));
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
    let ids = rows_order
        .iter()
        .flat_map(|&by| (0..grid.x as u64).map(move |bx| by as u64 * grid.x as u64 + bx))
        .collect();
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

/// The row-only fill under every order of the block rows.
pub fn explore_block_rows(cfg: &LaunchConfig, rows: u64, cols: u64) -> Outcomes<Vec<u32>> {
    let mut out = Outcomes::default();
    for perm in block_row_orders(cfg.grid) {
        let buf = run_fill(cfg, rows, cols, &by_block_rows(cfg.grid, &perm), Fill::RowOnly);
        out.add(perm, &Damage::of(&buf, marker));
    }
    out
}

/// The row-only fill under `shuffles` seeded shuffles of all blocks,
/// seeds `first_seed, first_seed + 1, ...`.
pub fn explore_shuffles(cfg: &LaunchConfig, rows: u64, cols: u64, first_seed: u64, shuffles: u64) -> Outcomes<u64> {
    let mut out = Outcomes::default();
    for seed in first_seed..first_seed + shuffles {
        let buf = run_fill(cfg, rows, cols, &BlockOrder::Shuffled(seed), Fill::RowOnly);
        out.add(seed, &Damage::of(&buf, marker));
    }
    out
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

fn join<T: ToString>(items: impl IntoIterator<Item = T>, sep: &str) -> String {
    items.into_iter().map(|x| x.to_string()).collect::<Vec<_>>().join(sep)
}

/// The source's case: a 4x10 matrix under 4x1 blocks.
pub const SOURCE_ROWS: u64 = 4;
pub const SOURCE_COLS: u64 = 10;
pub const SOURCE_BLOCK: Dim2 = Dim2::new(4, 1);

/// The larger case for the shuffles: 24x100 under 16x4 blocks.
pub const LARGE_ROWS: u64 = 24;
pub const LARGE_COLS: u64 = 100;
pub const LARGE_BLOCK: Dim2 = Dim2::new(16, 4);
pub const LARGE_SHUFFLES: u64 = 1000;

fn source_cfg() -> LaunchConfig {
    LaunchConfig::for_matrix(SOURCE_ROWS, SOURCE_COLS, SOURCE_BLOCK).expect("the source's launch is valid")
}

fn order_name(cfg: &LaunchConfig, order: &BlockOrder) -> String {
    format!("blockIdx.y = {}", join(block_row_sequence(cfg, order), ", "))
}

/// The worked example: every figure of the source's K.4 output.
pub fn worked_example() -> String {
    let (rows, cols) = (SOURCE_ROWS, SOURCE_COLS);
    let cfg = source_cfg();
    let block = cfg.block;
    let mut out = Report::new();
    let mut all_ok = true;
    out.heading("K.4: a bounds check that guards one axis of two");
    out.blank();
    out.line(format!(
        "matrix {rows}x{cols}, blocks of {}x{} threads, grid {}x{}: {cols} is {}a multiple of blockDim.x = {}",
        block.x,
        block.y,
        cfg.grid.x,
        cfg.grid.y,
        if cols % block.x as u64 == 0 { "" } else { "not " },
        block.x
    ));
    out.blank();

    out.heading("Both axes checked");
    let checked = Damage::of(&run_fill(&cfg, rows, cols, &BlockOrder::Forward, Fill::Checked), marker);
    let checked_ok = checked.wrong_cells == 0 && checked.padding_overwritten == 0;
    all_ok &= checked_ok;
    out.line(format!("every cell holds its row*1000+col marker, nothing past the end: {}", report::verdict(checked_ok)));
    out.blank();

    out.heading("Why an element-wise addition would hide the same bug");
    let (r, c) = (0, cols); // the first thread past the end of row 0
    let flat = r * cols + c;
    let (r2, c2) = (flat / cols, flat % cols);
    out.line(format!(
        "thread (row {r}, col {c}) is past the last column but computes flat index {r}*{cols}+{c} = {flat},"
    ));
    out.line(format!("which is cell (row {r2}, col {c2}) of out, a and b alike: it stores a({r2},{c2}) + b({r2},{c2}),"));
    out.line("the very value that cell should hold. Every stray store inside the matrix does the same.");
    out.line("A fill marker is made from the storing thread's own (row, col), so its strays are wrong.");
    out.blank();

    out.heading("Only the row checked");
    let overflow = cfg.waste(cols, rows).x;
    out.line(format!("columns past the last real column that every row still stores to: {overflow}"));
    out.blank();
    let fwd = run_fill(&cfg, rows, cols, &BlockOrder::Forward, Fill::RowOnly);
    let rev = run_fill(&cfg, rows, cols, &BlockOrder::Reverse, Fill::RowOnly);
    let (fwd_d, rev_d) = (Damage::of(&fwd, marker), Damage::of(&rev, marker));
    for (name, order, d) in [("forward", BlockOrder::Forward, &fwd_d), ("in reverse", BlockOrder::Reverse, &rev_d)] {
        out.line(format!(
            "blocks run {name} ({}): {} of {} rows below row 0 wrong",
            order_name(&cfg, &order),
            d.wrong_rows.len(),
            rows - 1
        ));
    }
    out.line(format!("padding cells overwritten, forward: {}", fwd_d.padding_overwritten));
    out.line(format!("padding cells overwritten, reverse: {}", rev_d.padding_overwritten));
    out.blank();
    out.line("column 0 of each row after the reverse run:");
    for r in 0..rows {
        let (got, want) = (rev.get(r, 0), marker(r, 0));
        let verdict = if got == want {
            report::flag(true, "correct")
        } else {
            let (wr, wc) = rev.last_writer(r, 0).expect("a wrong cell was stored to");
            format!("{}, last stored by thread (row {wr}, col {wc})", report::flag(false, "wrong"))
        };
        out.line(format!("  row {r}: holds {got}, should hold {want} -- {verdict}"));
    }
    out.blank();
    out.line(format!(
        "what both orders agree on: the last row's {overflow} stray stores, which land in the padding"
    ));
    all_ok &= fwd_d.wrong_rows.is_empty()
        && rev_d.wrong_rows.len() as u64 == rows - 1
        && fwd_d.padding_overwritten == overflow
        && rev_d.padding_overwritten == overflow;
    out.line(format!("every count above is what the reasoning predicts: {}", report::verdict(all_ok)));
    out.into_string()
}

/// The addition, actually run with the same one-axis check.
pub fn addition_report() -> String {
    let (rows, cols) = (SOURCE_ROWS, SOURCE_COLS);
    let cfg = source_cfg();
    let expected = |r, c| add_a(r, c) + add_b(r, c);
    let mut out = Report::new();
    out.heading("The addition, run with only the row checked");
    out.line(format!(
        "a(r,c) = r*1000 + c, b(r,c) = 3*r + 7*c, on the same {rows}x{cols} matrix and {}x{} blocks",
        cfg.block.x, cfg.block.y
    ));
    let cells = rows * cols;
    for (name, order) in [("forward", BlockOrder::Forward), ("in reverse", BlockOrder::Reverse)] {
        let buf = run_add(&cfg, rows, cols, &order);
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
    let buf = run_add(&cfg, rows, cols, &BlockOrder::Reverse);
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
        let d = Damage::of(&run_add(&cfg, rows, cols, &by_block_rows(cfg.grid, perm)), expected);
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
    let cfg = source_cfg();
    let (rows, cols) = (SOURCE_ROWS, SOURCE_COLS);
    let small = explore_block_rows(&cfg, rows, cols);
    out.heading(&format!(
        "Every order of the {} block rows: {rows}x{cols} matrix, {}x{} blocks",
        cfg.grid.y, cfg.block.x, cfg.block.y
    ));
    outcome_table(&mut out, &small, |p| join(p.iter(), " "), "first such order of blockIdx.y");
    out.line(format!(
        "{} orders, {} distinct outcomes; padding cells overwritten: {}",
        small.runs,
        small.by_wrong_rows.len(),
        padding_summary(&small.padding_counts)
    ));
    out.blank();

    let big = LaunchConfig::for_matrix(LARGE_ROWS, LARGE_COLS, LARGE_BLOCK).expect("the large launch is valid");
    let shuffled = explore_shuffles(&big, LARGE_ROWS, LARGE_COLS, 0, LARGE_SHUFFLES);
    out.heading(&format!(
        "{LARGE_SHUFFLES} seeded shuffles of all {} blocks: {LARGE_ROWS}x{LARGE_COLS} matrix, {}x{} blocks",
        big.blocks(),
        big.block.x,
        big.block.y
    ));
    outcome_table(&mut out, &shuffled, |s| s.to_string(), "first seed");
    let (lo, hi) = (shuffled.by_wrong_rows.keys().next().unwrap(), shuffled.by_wrong_rows.keys().last().unwrap());
    out.line(format!(
        "{} distinct outcomes, from {lo} to {hi} of {} rows below row 0 wrong; padding cells overwritten: {}",
        shuffled.by_wrong_rows.len(),
        LARGE_ROWS - 1,
        padding_summary(&shuffled.padding_counts)
    ));
    let checked_ok = (0..LARGE_SHUFFLES).all(|seed| {
        let d = Damage::of(&run_fill(&big, LARGE_ROWS, LARGE_COLS, &BlockOrder::Shuffled(seed), Fill::Checked), marker);
        d.wrong_cells == 0 && d.padding_overwritten == 0
    });
    out.line(format!("the fully checked kernel is exact under the same {LARGE_SHUFFLES} shuffles: {}", report::verdict(checked_ok)));
    out.into_string()
}

/// Why a custom experiment cannot run.
pub fn validate(rows: u64, cols: u64, block: Dim2, shuffles: u64) -> Result<LaunchConfig, String> {
    if cols > MAX_COLS {
        return Err(format!(
            "{cols} columns: the row*1000+col marker is unique per cell only below 1000 columns"
        ));
    }
    let cfg = LaunchConfig::for_matrix(rows, cols, block).map_err(|e| e.to_string())?;
    let orders = if cfg.grid.y <= MAX_ENUMERATED_BLOCK_ROWS { (1..=cfg.grid.y as u64).product() } else { 0 };
    let work = cfg.total_threads().saturating_mul(shuffles + orders + 2);
    if work > MAX_SIMULATED_THREADS {
        return Err(format!(
            "that would simulate {work} threads, more than the limit of {MAX_SIMULATED_THREADS}; use fewer shuffles or a smaller matrix"
        ));
    }
    Ok(cfg)
}

/// Block rows up to which a custom experiment tries every order (8! = 40320).
pub const MAX_ENUMERATED_BLOCK_ROWS: u32 = 8;
/// The most thread bodies a custom experiment may run.
pub const MAX_SIMULATED_THREADS: u64 = 1 << 30;

/// A custom experiment: both fill kernels and the order distribution.
pub fn experiment_report(cfg: &LaunchConfig, rows: u64, cols: u64, shuffles: u64, seed: u64) -> String {
    let mut out = Report::new();
    let overflow = cfg.waste(cols, rows).x;
    out.line(format!(
        "matrix {rows}x{cols}, blocks of {}, grid {}: {overflow} columns past the last real column in every row",
        cfg.block, cfg.grid
    ));
    let checked = Damage::of(&run_fill(cfg, rows, cols, &BlockOrder::Forward, Fill::Checked), marker);
    out.line(format!("both axes checked: every cell right: {}", report::verdict(checked.wrong_cells == 0)));
    for (name, order) in [("forward", BlockOrder::Forward), ("in reverse", BlockOrder::Reverse)] {
        let d = Damage::of(&run_fill(cfg, rows, cols, &order, Fill::RowOnly), marker);
        writeln!(
            out,
            "row only, blocks run {name}: {} of {} rows below row 0 wrong, {} padding cells overwritten",
            d.wrong_rows.len(),
            rows - 1,
            d.padding_overwritten
        )
        .unwrap();
    }
    if cfg.grid.y <= MAX_ENUMERATED_BLOCK_ROWS {
        let o = explore_block_rows(cfg, rows, cols);
        out.line(format!("every order of the {} block rows ({} orders):", cfg.grid.y, o.runs));
        outcome_table(&mut out, &o, |p| join(p.iter(), " "), "first such order of blockIdx.y");
    } else {
        out.line(format!("{} block rows: too many to try every order", cfg.grid.y));
    }
    if shuffles > 0 {
        let o = explore_shuffles(cfg, rows, cols, seed, shuffles);
        out.line(format!("{shuffles} seeded shuffles of all {} blocks, seeds from {seed}:", cfg.blocks()));
        outcome_table(&mut out, &o, |s| s.to_string(), "first seed");
        out.line(format!("padding cells overwritten: {}", padding_summary(&o.padding_counts)));
    }
    out.into_string()
}

/// Every output the K.4 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k4_boundary_check.txt", worked_example()),
        ("k4_boundary_check-addition.txt", addition_report()),
        ("k4_boundary_check-orders.txt", orders_report()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn source_figures() {
        let cfg = source_cfg();
        assert_eq!(cfg.waste(10, 4).x, 2);
        let fwd = Damage::of(&run_fill(&cfg, 4, 10, &BlockOrder::Forward, Fill::RowOnly), marker);
        let rev_buf = run_fill(&cfg, 4, 10, &BlockOrder::Reverse, Fill::RowOnly);
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
        assert_eq!(
            by_block_rows(Dim2::new(2, 2), &[1, 0]),
            BlockOrder::Explicit(vec![2, 3, 0, 1])
        );
    }

    /// With 4x1 blocks each block row is one matrix row, and row r is wrong
    /// exactly when block row r-1 runs after block row r: the counts are the
    /// Eulerian numbers 1, 11, 11, 1.
    #[test]
    fn small_case_distribution_is_eulerian() {
        let o = explore_block_rows(&source_cfg(), 4, 10);
        let counts: Vec<(u64, u64)> = o.by_wrong_rows.iter().map(|(k, (n, _))| (*k, *n)).collect();
        assert_eq!(counts, vec![(0, 1), (1, 11), (2, 11), (3, 1)]);
        assert_eq!(o.padding_counts, BTreeMap::from([(2, 24)]));
    }

    #[test]
    fn addition_overflow_is_harmless_inside_the_matrix() {
        let cfg = source_cfg();
        for perm in block_row_orders(cfg.grid) {
            let buf = run_add(&cfg, 4, 10, &by_block_rows(cfg.grid, &perm));
            let d = Damage::of(&buf, |r, c| add_a(r, c) + add_b(r, c));
            assert_eq!((d.wrong_cells, d.padding_overwritten), (0, 2));
            assert!(buf.padding()[..2].iter().all(|&v| v == 2.0 * SENTINEL));
        }
    }

    #[test]
    fn the_kernel_file_holds_all_three_kernels() {
        ktrav::kernels::check_compiled("k4_boundary_check", &["fill_checked", "fill_row_only_checked", "add_row_only_checked"]);
        // The bug is in the .cu too, not only in its Rust twin.
        let k = ktrav::kernels::find("k4_boundary_check").unwrap();
        assert!(k.source.contains("if (row < rows) {"));
    }

    #[test]
    #[should_panic(expected = "past the padding")]
    fn stores_beyond_the_padding_are_caught() {
        let mut b = PaddedBuffer::new(1, 2, 1, |_, _| 0.0);
        b.store((0, 9), Store { index: 4, value: 1.0 });
    }

    #[test]
    fn custom_inputs_are_validated() {
        assert!(validate(4, 1000, SOURCE_BLOCK, 0).unwrap_err().contains("1000"));
        assert!(validate(4, 10, Dim2::new(64, 32), 0).is_err());
        assert!(validate(4096, 999, Dim2::new(32, 1), 1_000_000).unwrap_err().contains("limit"));
        assert!(validate(4, 10, SOURCE_BLOCK, 10).is_ok());
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
            let cfg = LaunchConfig::for_matrix(rows, cols, Dim2::new(bx, by)).unwrap();
            let order = BlockOrder::Shuffled(seed);
            let ok = Damage::of(&run_fill(&cfg, rows, cols, &order, Fill::Checked), marker);
            prop_assert_eq!((ok.wrong_cells, ok.padding_overwritten), (0, 0));
            let buf = run_fill(&cfg, rows, cols, &order, Fill::RowOnly);
            let d = Damage::of(&buf, marker);
            prop_assert_eq!(d.padding_overwritten, cfg.waste(cols, rows).x);
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
            if by == 1 || cfg.grid.x == 1 {
                let f = Damage::of(&run_fill(&cfg, rows, cols, &BlockOrder::Forward, Fill::RowOnly), marker);
                prop_assert!(f.wrong_rows.is_empty());
            }
        }
    }
}
