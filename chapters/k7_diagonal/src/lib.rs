//! Appendix K.7: diagonal order. Positions on one anti-diagonal
//! (`row + col == d`) are independent of each other; each depends only on
//! the diagonal before it. That, not how hard an index formula is, decides
//! how many kernel launches a computation needs.
//!
//! The chapter's kernels (`kernels/k7_diagonal.cu`) fill a lattice-path
//! table, `paths(r, c) = paths(r-1, c) + paths(r, c-1)`, three ways. The
//! file reads top to bottom like the CUDA study it mirrors:
//!
//! 1. the CPU reference: the zigzag walk, the diagonal bounds, the
//!    recurrence written once ([`lattice_cell`]) and the scalar fill;
//! 2. the kernel twins, one per `__global__`: [`lattice_wavefront`] (one
//!    launch per diagonal), [`lattice_single_launch`] (one launch for the
//!    whole grid, wrong on purpose) and [`lattice_tiled`] (one block per
//!    tile, one launch per diagonal of tiles, cells inside a tile ordered by
//!    a barrier);
//! 3. the launch plans, one per kernel, as data: the simulator runs them
//!    here and the GPU runner in [`gpu`];
//! 4. the exploration: membership, exactness, the race;
//! 5. the report.
//!
//! Counts are kept modulo the prime `2^61 - 1` ([`MODULUS`]): the arithmetic
//! is exact at any size, equal to the true count while that is below the
//! modulus, and checkable against a closed-form binomial ([`binomial_mod`]).

pub mod exercises;
pub mod figures;
pub mod gpu;
pub mod values;

use anyhow::{Context, Result};
use ktrav::{launch_phased, BlockOrder, Dim2, LaunchConfig, Shape, Thread};
use ktrav_term::report::{self, Report};

// --- 1. CPU reference --------------------------------------------------------

// ANCHOR: zigzag
/// The zigzag walk: diagonal by diagonal, turning round at the end of
/// each. It uses none of the bounds below: every cell is filed under its
/// diagonal `row + col`, in row order. No kernel follows it;
/// [`check_membership`] cuts it into runs to test `row_min` and `row_max`
/// against it.
pub fn zigzag_order(shape: Shape) -> Vec<(u64, u64)> {
    let mut order = Vec::with_capacity(shape.elements() as usize);
    if shape.is_empty() {
        return order;
    }
    let (rows, cols) = (shape.rows, shape.cols);
    let mut diagonals: Vec<Vec<u64>> = vec![Vec::new(); (rows + cols - 1) as usize];
    for r in 0..rows {
        for c in 0..cols {
            diagonals[(r + c) as usize].push(r);
        }
    }
    for (d, on_diagonal) in diagonals.iter().enumerate() {
        let d = d as u64;
        if d.is_multiple_of(2) {
            on_diagonal.iter().rev().for_each(|&r| order.push((r, d - r))); // up and to the right
        } else {
            on_diagonal.iter().for_each(|&r| order.push((r, d - r))); // down and to the left
        }
    }
    order
}
// ANCHOR_END: zigzag

// ANCHOR: bounds
/// The diagonal a position lies on.
pub fn diagonal_of(row: u64, col: u64) -> u64 {
    row + col
}

/// A `rows x cols` matrix has `rows + cols - 1` anti-diagonals.
pub fn diagonal_count(shape: Shape) -> u64 {
    shape.rows + shape.cols - 1
}

/// The first row on diagonal `d`: 0 until the diagonal runs past the last
/// column, then clamped so that `col = d - row` stays below `cols`.
pub fn row_min(d: u64, _rows: u64, cols: u64) -> u64 {
    d.saturating_sub(cols - 1)
}

/// The last row on diagonal `d`: `d` itself, clamped to the last row.
pub fn row_max(d: u64, rows: u64, _cols: u64) -> u64 {
    d.min(rows - 1)
}

/// How many positions diagonal `d` holds: the threads one launch needs.
pub fn diagonal_len(d: u64, shape: Shape) -> u64 {
    row_max(d, shape.rows, shape.cols) - row_min(d, shape.rows, shape.cols) + 1
}
// ANCHOR_END: bounds

// ANCHOR: arithmetic
/// The Mersenne prime `2^61 - 1`. Two residues add to less than `2^62`, so
/// one conditional subtraction reduces the sum: exact, and never overflows.
/// The `.cu` files state it as `LATTICE_MODULUS`, tied to this by a test.
pub const MODULUS: u64 = (1 << MODULUS_BITS) - 1;

/// The modulus is `2^MODULUS_BITS - 1`, as the reports print it.
pub const MODULUS_BITS: u32 = 61;

/// `(a + b) mod MODULUS` as the `.cu` files write it, in 64-bit unsigned
/// arithmetic, which wraps: a garbage operand (a cell nobody wrote, as a
/// wrong twin may read) gives a wrong value, not an overflow.
pub fn add_mod(a: u64, b: u64) -> u64 {
    let sum = a.wrapping_add(b);
    if sum >= MODULUS {
        sum - MODULUS
    } else {
        sum
    }
}

/// The recurrence, written once: the scalar fill, every kernel twin and
/// every check use it. The edges are 1; any other cell is the sum of its
/// upper and left neighbours, both on the previous diagonal.
pub fn lattice_cell(grid: &(impl Table + ?Sized), row: u64, col: u64, cols: u64) -> u64 {
    let at = row * cols + col;
    if row == 0 || col == 0 {
        1
    } else {
        add_mod(grid.load(at - cols), grid.load(at - 1))
    }
}

/// The plain scalar fill every kernel is checked against: row by row, so
/// each cell's two inputs are always ready.
pub fn scalar_dp(shape: Shape) -> Vec<u64> {
    let mut grid = vec![0u64; shape.elements() as usize];
    for r in 0..shape.rows {
        for c in 0..shape.cols {
            grid[(r * shape.cols + c) as usize] = lattice_cell(&grid, r, c, shape.cols);
        }
    }
    grid
}
// ANCHOR_END: arithmetic

// --- 2. Kernel twins ---------------------------------------------------------

// ANCHOR: wavefront
/// The table as a kernel sees it, CUDA's `unsigned long long* grid`: loads
/// and stores of cells by flat index. The simulator decides when a store
/// becomes visible to other threads (see [`Interleaving`]).
pub trait Table {
    fn load(&self, at: u64) -> u64;
    fn store(&mut self, at: u64, value: u64);
}

impl Table for Vec<u64> {
    fn load(&self, at: u64) -> u64 {
        self[at as usize]
    }
    fn store(&mut self, at: u64, value: u64) {
        self[at as usize] = value;
    }
}

/// `__global__ lattice_wavefront(grid, rows, cols, d)`, launched once per
/// diagonal `d`: thread `t` owns the `t`-th position of the diagonal,
/// counted from `row_min(d)`.
pub fn lattice_wavefront(t: Thread, grid: &mut dyn Table, rows: u64, cols: u64, d: u64) {
    let row = row_min(d, rows, cols) + t.global_x();
    if row > row_max(d, rows, cols) {
        return; // a spare thread: row_max(d) is behind it
    }
    let col = d - row;
    let value = lattice_cell(grid, row, col, cols); // both inputs on diagonal d - 1
    grid.store(row * cols + col, value);
}
// ANCHOR_END: wavefront

// ANCHOR: single_launch
/// `__global__ lattice_single_launch(grid, rows, cols)`: the same cell
/// update, launched ONCE over the whole grid (wrong on purpose). Its load
/// and its store are two statements, so the simulator can run the threads of
/// a block one at a time or in lock-step between them.
pub fn lattice_single_launch(t: Thread, grid: &mut dyn Table, rows: u64, cols: u64) {
    let row = t.global_y();
    let col = t.global_x();
    if row >= rows || col >= cols {
        return;
    }
    let value = lattice_cell(grid, row, col, cols); // finished yet? nothing says so
    grid.store(row * cols + col, value); // the store half
}
// ANCHOR_END: single_launch

// ANCHOR: tiled
/// Which tile a block of the launch for tile diagonal `tile_d` owns.
pub fn tile_of(t: Thread, rows: u64, cols: u64, tile_d: u64) -> (u64, u64) {
    let tile = t.block_dim.x as u64;
    let (tiles_down, tiles_across) = (rows.div_ceil(tile), cols.div_ceil(tile));
    let tile_row = row_min(tile_d, tiles_down, tiles_across) + t.block_idx.x as u64;
    (tile_row, tile_d - tile_row)
}

/// `__global__ lattice_tiled(grid, rows, cols, tile_d)` for one `tile x tile`
/// block, iteration `step` of its loop of `2 * tile - 1`: the threads with
/// `tx + ty == step` (the tile's own `step`-th diagonal) update their cell.
/// In CUDA each iteration ends in `__syncthreads()`; the simulator runs
/// each step for every thread of the block before the next (a phase).
pub fn lattice_tiled(t: Thread, step: usize, grid: &mut dyn Table, rows: u64, cols: u64, tile_d: u64) {
    let tile = t.block_dim.x as u64;
    let (tile_row, tile_col) = tile_of(t, rows, cols, tile_d);
    let row = tile_row * tile + t.thread_idx.y as u64;
    let col = tile_col * tile + t.thread_idx.x as u64;
    let on_this_diagonal = (t.thread_idx.x + t.thread_idx.y) as usize == step;
    if on_this_diagonal && row < rows && col < cols {
        let value = lattice_cell(grid, row, col, cols);
        grid.store(row * cols + col, value);
    }
    // __syncthreads(): the simulator ends the step here
}
// ANCHOR_END: tiled

// --- 3. Launch plans ---------------------------------------------------------

// ANCHOR: schedule
/// One launch of a plan: its configuration, and the diagonal it fills (the
/// kernel's last argument: `d`, or `tile_d` for the tiled kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub cfg: LaunchConfig,
    pub diagonal: u64,
}

/// How the threads of one block interleave between two barriers. Without a
/// barrier, both are legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interleaving {
    /// Each thread loads and stores before the next thread starts.
    OneAtATime,
    /// Every thread of the block loads, then every thread stores: what a
    /// warp executing in lock-step does.
    LockStep,
}

/// The table as the threads of a block in lock-step see it during one
/// step: every load reads the table as it was when the step began, and the
/// stores land together when it ends.
struct LockStepView<'a> {
    grid: &'a [u64],
    stores: &'a mut Vec<(u64, u64)>,
}

impl Table for LockStepView<'_> {
    fn load(&self, at: u64) -> u64 {
        self.grid[at as usize]
    }
    fn store(&mut self, at: u64, value: u64) {
        self.stores.push((at, value));
    }
}

/// Runs a plan's launches in order, each finished before the next starts,
/// on `grid`. Each launch runs `steps` barrier-separated steps of `kernel`
/// (called with the thread, the step, the table and the launch's diagonal),
/// blocks in `order`, threads `interleaving` between barriers.
pub fn run_plan(
    grid: &mut Vec<u64>,
    plan: &[Launch],
    steps: usize,
    order: &BlockOrder,
    interleaving: Interleaving,
    mut kernel: impl FnMut(Thread, usize, &mut dyn Table, u64),
) {
    for launch in plan {
        match interleaving {
            Interleaving::OneAtATime => launch_phased(
                &launch.cfg,
                order,
                steps,
                || (),
                |t, step, _| {
                    kernel(t, step, grid, launch.diagonal);
                },
            ),
            // Two phases per step: every thread loads and queues its store,
            // then the stores land, then the barrier.
            Interleaving::LockStep => {
                launch_phased(&launch.cfg, order, 2 * steps, Vec::new, |t, phase, stores: &mut Vec<(u64, u64)>| {
                    if phase % 2 == 0 {
                        kernel(t, phase / 2, &mut LockStepView { grid: grid.as_slice(), stores }, launch.diagonal);
                    } else {
                        for (at, value) in stores.drain(..) {
                            grid[at as usize] = value;
                        }
                    }
                })
            }
        }
    }
}
// ANCHOR_END: schedule

// ANCHOR: wavefront_plan
/// `lattice_wavefront`'s launches: one per diagonal, a 1D grid just long
/// enough for it. The GPU code launches exactly these.
pub fn wavefront_plan(shape: Shape, block_x: u32) -> Result<Vec<Launch>> {
    (0..diagonal_count(shape))
        .map(|d| {
            let cfg = LaunchConfig::covering(Shape::row(diagonal_len(d, shape)), Dim2::new(block_x, 1))
                .with_context(|| format!("diagonal {d} of a {shape} table with {block_x}-thread blocks"))?;
            Ok(Launch { cfg, diagonal: d })
        })
        .collect()
}

/// The host's loop: `rows + cols - 1` launches, each finished before the
/// next starts. Returns the grid and the number of launches.
pub fn simulate_wavefront(shape: Shape, block_x: u32, order: &BlockOrder) -> Result<(Vec<u64>, u64)> {
    let plan = wavefront_plan(shape, block_x)?;
    let mut grid = vec![0u64; shape.elements() as usize];
    run_plan(&mut grid, &plan, 1, order, Interleaving::OneAtATime, |t, _, grid, d| {
        lattice_wavefront(t, grid, shape.rows, shape.cols, d)
    });
    Ok((grid, plan.len() as u64))
}
// ANCHOR_END: wavefront_plan

// ANCHOR: single_launch_plan
/// `lattice_single_launch`'s one launch: the whole table, `x` along columns.
pub fn single_launch_plan(shape: Shape, block: Dim2) -> Result<Launch> {
    let cfg = LaunchConfig::covering(shape, block).with_context(|| format!("a {shape} table with {block} blocks"))?;
    Ok(Launch { cfg, diagonal: 0 })
}

/// One launch for the whole grid, blocks in `order`, threads `interleaving`.
pub fn simulate_single_launch(
    shape: Shape,
    block: Dim2,
    order: &BlockOrder,
    interleaving: Interleaving,
) -> Result<Vec<u64>> {
    let plan = [single_launch_plan(shape, block)?];
    let mut grid = vec![0u64; shape.elements() as usize]; // cudaMemset(grid, 0, ...)
    run_plan(&mut grid, &plan, 1, order, interleaving, |t, _, grid, _| {
        lattice_single_launch(t, grid, shape.rows, shape.cols)
    });
    Ok(grid)
}
// ANCHOR_END: single_launch_plan

// ANCHOR: tiled_plan
/// `lattice_tiled`'s launches: one per diagonal of tiles, with one
/// `tile x tile` block per tile on it (a grid of `blocks x 1`).
pub fn tiled_plan(shape: Shape, tile: u32) -> Result<Vec<Launch>> {
    let block = Dim2::new(tile, tile);
    LaunchConfig::check_block(block).with_context(|| format!("{tile}x{tile} tiles"))?;
    let tiles = Shape::new(shape.rows.div_ceil(tile as u64), shape.cols.div_ceil(tile as u64));
    (0..diagonal_count(tiles))
        .map(|tile_d| {
            let blocks = diagonal_len(tile_d, tiles);
            let cfg = LaunchConfig::covering(Shape::new(tile as u64, blocks * tile as u64), block)
                .with_context(|| format!("tile diagonal {tile_d} of a {shape} table with {tile}x{tile} tiles"))?;
            Ok(Launch { cfg, diagonal: tile_d })
        })
        .collect()
}

/// The barrier-separated steps of one `lattice_tiled` block: the tile's own
/// diagonals.
pub fn tiled_steps(tile: u32) -> usize {
    2 * tile as usize - 1
}

/// The host's loop for the tiled version. Each step ends at a barrier (a
/// phase boundary of the simulator); `interleaving` says how the threads of
/// a block run between two barriers.
pub fn simulate_tiled(
    shape: Shape,
    tile: u32,
    order: &BlockOrder,
    interleaving: Interleaving,
) -> Result<(Vec<u64>, u64)> {
    let plan = tiled_plan(shape, tile)?;
    let mut grid = vec![0u64; shape.elements() as usize];
    run_plan(&mut grid, &plan, tiled_steps(tile), order, interleaving, |t, step, grid, tile_d| {
        lattice_tiled(t, step, grid, shape.rows, shape.cols, tile_d)
    });
    Ok((grid, plan.len() as u64))
}
// ANCHOR_END: tiled_plan

// --- 4. Exploration ----------------------------------------------------------

/// What the closed forms say about one shape, checked against the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MembershipCheck {
    pub positions: u64,
    /// Cutting the walk into runs of `diagonal_len(d)` puts every position of
    /// run `d` on diagonal `d`, and the runs use up the walk exactly.
    pub on_own_diagonal: bool,
    /// The rows of run `d` are exactly `row_min(d)..=row_max(d)`.
    pub rows_within_bounds: bool,
}

impl MembershipCheck {
    pub fn ok(&self) -> bool {
        self.on_own_diagonal && self.rows_within_bounds
    }
}

/// Walks the zigzag order diagonal by diagonal, using only the closed forms
/// to decide where each diagonal ends.
pub fn check_membership(shape: Shape) -> MembershipCheck {
    membership_of(&zigzag_order(shape), shape)
}

/// [`check_membership`] for any proposed walk of a `shape` matrix.
pub fn membership_of(walk: &[(u64, u64)], shape: Shape) -> MembershipCheck {
    let (rows, cols) = (shape.rows, shape.cols);
    let runs = diagonal_runs(walk, shape);
    let whole = runs.len() as u64 == diagonal_count(shape)
        && runs.iter().map(|(_, run)| run.len()).sum::<usize>() == walk.len()
        && walk.len() as u64 == shape.elements();
    let on_own_diagonal =
        whole && runs.iter().all(|(d, run)| run.iter().all(|&(r, c)| diagonal_of(r, c) == *d && r < rows && c < cols));
    let rows_within_bounds = runs.iter().all(|&(d, run)| {
        let mut seen: Vec<u64> = run.iter().map(|&(r, _)| r).collect();
        seen.sort_unstable();
        seen.iter().copied().eq(row_min(d, rows, cols)..=row_max(d, rows, cols))
    });
    MembershipCheck { positions: shape.elements(), on_own_diagonal, rows_within_bounds }
}

/// `walk` cut into its diagonals in order, each as long as the closed form
/// says diagonal `d` is: as many as the walk holds whole.
fn diagonal_runs(walk: &[(u64, u64)], shape: Shape) -> Vec<(u64, &[(u64, u64)])> {
    let mut runs = Vec::new();
    let mut at = 0usize;
    for d in 0..diagonal_count(shape) {
        let len = diagonal_len(d, shape) as usize;
        let Some(run) = walk.get(at..at + len) else { break };
        runs.push((d, run));
        at += len;
    }
    runs
}

/// Binomial coefficients `C(n, k) mod MODULUS` for every `n` up to a
/// bound, from tables of `n!` and `1/n!` (the modulus is prime and larger
/// than any `n` used here, so every factorial is invertible, by Fermat).
/// Independent of the recurrence, so it checks the DP as well as the
/// kernels; each coefficient is two multiplications, so a table of billions
/// of cells is checked cell by cell without filling a second one.
pub struct Binomials {
    fact: Vec<u64>,
    inv_fact: Vec<u64>,
}

impl Binomials {
    /// The tables for every `n <= max`.
    pub fn up_to(max: u64) -> Self {
        let len = max as usize + 1;
        let mut fact = vec![1u64; len];
        for i in 1..len {
            fact[i] = mul_mod(fact[i - 1], i as u64);
        }
        let mut inv_fact = vec![1u64; len];
        inv_fact[len - 1] = pow_mod(fact[len - 1], MODULUS - 2);
        for i in (1..len).rev() {
            inv_fact[i - 1] = mul_mod(inv_fact[i], i as u64);
        }
        Binomials { fact, inv_fact }
    }

    /// The tables a `shape` table's cells need: `n` up to `rows + cols - 2`.
    pub fn for_table(shape: Shape) -> Self {
        Self::up_to(shape.rows + shape.cols - 2)
    }

    /// `C(n, k) mod MODULUS`, for `k <= n` within the tables.
    pub fn choose(&self, n: u64, k: u64) -> u64 {
        mul_mod(self.fact[n as usize], mul_mod(self.inv_fact[k as usize], self.inv_fact[(n - k) as usize]))
    }

    /// The lattice paths to `(r, c)`: `C(r + c, r)`.
    pub fn paths(&self, r: u64, c: u64) -> u64 {
        self.choose(r + c, r)
    }
}

/// `C(n, k) mod MODULUS`, one coefficient (see [`Binomials`]).
pub fn binomial_mod(n: u64, k: u64) -> u64 {
    Binomials::up_to(n).choose(n, k)
}

fn mul_mod(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) % MODULUS as u128) as u64
}

fn pow_mod(mut base: u64, mut exp: u64) -> u64 {
    let mut acc = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = mul_mod(acc, base);
        }
        base = mul_mod(base, base);
        exp >>= 1;
    }
    acc
}

/// Where 32-bit floats stop counting lattice paths correctly: the first
/// cell (in diagonal order) whose f32 value differs from the exact count,
/// and the first diagonal on which f32 overflows to infinity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatLimits {
    pub first_inexact: (u64, u64, u128, f32),
    /// The first cell (in diagonal order) whose f32 value is infinite.
    pub first_infinite: (u64, u64),
}

pub fn float_limits() -> FloatLimits {
    // Row d of Pascal's triangle is diagonal d of the table: paths(r, d - r) = C(d, r).
    let (mut exact, mut float) = (vec![1u128], vec![1f32]);
    let mut first_inexact = None;
    for d in 1.. {
        let next_exact: Vec<u128> =
            (0..=d).map(|r| if r == 0 || r == d { 1 } else { exact[r - 1].saturating_add(exact[r]) }).collect();
        let next_float: Vec<f32> =
            (0..=d).map(|r| if r == 0 || r == d { 1.0 } else { float[r - 1] + float[r] }).collect();
        if first_inexact.is_none() {
            if let Some(r) = (0..=d).find(|&r| next_float[r] as u128 != next_exact[r]) {
                first_inexact = Some((r as u64, (d - r) as u64, next_exact[r], next_float[r]));
            }
        }
        if let Some(r) = (0..=d).find(|&r| next_float[r].is_infinite()) {
            return FloatLimits {
                first_inexact: first_inexact.expect("f32 loses exactness before it overflows"),
                first_infinite: (r as u64, (d - r) as u64),
            };
        }
        (exact, float) = (next_exact, next_float);
    }
    unreachable!()
}

/// Cells where `grid` differs from the scalar DP.
pub fn wrong_cells(grid: &[u64], shape: Shape) -> u64 {
    grid.iter().zip(scalar_dp(shape)).filter(|(a, b)| **a != *b).count() as u64
}

/// The source's six membership shapes and five DP cases (block_dim_x = 4).
pub const SOURCE_SHAPES: [Shape; 6] =
    [Shape::new(3, 3), Shape::new(4, 5), Shape::new(5, 4), Shape::new(1, 6), Shape::new(6, 1), Shape::new(7, 7)];
pub const SOURCE_DP_CASES: [Shape; 5] =
    [Shape::new(5, 5), Shape::new(6, 9), Shape::new(9, 6), Shape::new(1, 8), Shape::new(8, 1)];
pub const SOURCE_BLOCK_X: u32 = 4;

/// The simulator's larger tables beyond the source's: each with its tile
/// for the tiled wavefront (the first is also filled one launch per
/// diagonal, every launch's blocks shuffled, against the binomial).
pub const TILED_TABLES: [(Shape, u32); 2] = [(Shape::new(500, 700), 16), (Shape::new(1024, 1024), 32)];

/// The 3x3 walk, as the cells' 1-based row-major numbers.
pub fn sequence_3x3() -> String {
    report::join(zigzag_order(Shape::new(3, 3)).iter().map(|&(r, c)| r * 3 + c + 1), " ")
}

// --- 5. Report ---------------------------------------------------------------

/// The worked example: every figure of the source's K.7 output.
pub fn worked_example() -> String {
    let mut out = Report::new();
    out.heading("K.7: a diagonal's cells are independent; consecutive diagonals are not");
    out.blank();
    out.line("A 3x3 matrix numbered 1..9 row by row, read in zigzag order:");
    let walked = sequence_3x3();
    out.line(format!("  walked:   {walked}"));
    out.line("  expected: 1 2 4 7 5 3 6 8 9");
    out.line(format!("  same: {}", report::verdict(walked == "1 2 4 7 5 3 6 8 9")));
    out.blank();

    out.heading("Do row_min and row_max cut the zigzag walk into its diagonals?");
    let checks: Vec<(Shape, MembershipCheck)> =
        SOURCE_SHAPES.iter().map(|&shape| (shape, check_membership(shape))).collect();
    for (shape, check) in &checks {
        out.line(format!(
            "  {shape}: run d of the walk has row + col = d on every cell and rows row_min(d)..=row_max(d): {}",
            report::verdict(check.ok())
        ));
    }
    out.blank();
    out.line(format!(
        "the row bounds fit the walk on all {} shapes: {}",
        SOURCE_SHAPES.len(),
        report::verdict(checks.iter().all(|(_, check)| check.ok()))
    ));
    out.blank();

    out.heading("lattice_wavefront in the simulator, a launch for each diagonal");
    // Each case: its shape, its launches, and whether the table is scalar_dp's.
    let cases: Vec<(Shape, u64, bool)> = SOURCE_DP_CASES
        .iter()
        .map(|&shape| {
            let (grid, launches) = simulate_wavefront(shape, SOURCE_BLOCK_X, &BlockOrder::Forward)
                .expect("the source's launch shapes are valid");
            (shape, launches, grid == scalar_dp(shape))
        })
        .collect();
    for (shape, launches, ok) in &cases {
        out.line(format!(
            "  {shape} in {launches} launches of block_dim_x={SOURCE_BLOCK_X}: table equal to scalar_dp's: {}",
            report::verdict(*ok)
        ));
    }
    out.blank();
    let all_dp = cases.iter().all(|&(_, _, ok)| ok);
    out.line(format!(
        "the launches fill each of the {} tables as the scalar fill does: {}",
        SOURCE_DP_CASES.len(),
        report::verdict(all_dp)
    ));
    out.into_string()
}

/// Beyond the source, part 1: what the table holds, and why integers.
pub fn exactness_report() -> String {
    let mut out = Report::new();
    out.heading("What the table holds: exact counts, not floats");
    for shape in SOURCE_DP_CASES {
        let (grid, _) = simulate_wavefront(shape, SOURCE_BLOCK_X, &BlockOrder::Reverse).expect("valid launch");
        let (rows, cols) = (shape.rows, shape.cols);
        let corner = grid[grid.len() - 1];
        let n = rows + cols - 2;
        out.line(format!(
            "  {shape}: paths to the far corner = {corner}, C({n}, {}) = {}: {}",
            rows - 1,
            binomial_mod(n, rows - 1),
            report::verdict(corner == binomial_mod(n, rows - 1))
        ));
    }
    let f = float_limits();
    let (r, c, exact, float) = f.first_inexact;
    out.line(format!("  f32 first goes wrong at cell ({r}, {c}), diagonal {}: {float:.0} instead of {exact}", r + c));
    let (r, c) = f.first_infinite;
    out.line(format!(
        "  f32 overflows to infinity at cell ({r}, {c}), diagonal {}: a {}x{} table is already out of range",
        r + c,
        r + 1,
        c + 1
    ));
    let (shape, _) = TILED_TABLES[0];
    let (rows, cols) = (shape.rows, shape.cols);
    let (grid, launches) = simulate_wavefront(shape, 128, &BlockOrder::Shuffled(7)).expect("valid launch");
    let corner = grid[grid.len() - 1];
    let expect = binomial_mod(rows + cols - 2, rows - 1);
    out.line(format!(
        "  {shape}, {launches} launches: corner = {corner} (mod 2^{MODULUS_BITS}-1), C({}, {}) mod 2^{MODULUS_BITS}-1 = {expect}, and every cell as scalar_dp's: {}",
        rows + cols - 2,
        rows - 1,
        report::verdict(corner == expect && grid == scalar_dp(shape))
    ));
    out.into_string()
}

/// The single-launch schedules of [`single_launch_table`], in its order.
fn single_launch_schedules(seeds: &[u64]) -> Vec<(String, BlockOrder, Interleaving)> {
    let mut schedules: Vec<(String, BlockOrder, Interleaving)> = vec![
        ("blocks forward,  threads one at a time".into(), BlockOrder::Forward, Interleaving::OneAtATime),
        ("blocks reversed, threads one at a time".into(), BlockOrder::Reverse, Interleaving::OneAtATime),
    ];
    for &seed in seeds {
        schedules.push((
            format!("blocks shuffled (seed {seed}), one at a time"),
            BlockOrder::Shuffled(seed),
            Interleaving::OneAtATime,
        ));
    }
    schedules.push(("blocks forward,  threads in lock-step".into(), BlockOrder::Forward, Interleaving::LockStep));
    schedules
}

/// The single-launch table for one shape: wrong cells per schedule.
/// `progress` is told the work of each schedule (see [`ShapeWork`]).
pub fn single_launch_table(shape: Shape, block: Dim2, seeds: &[u64], progress: &mut dyn FnMut(u64)) -> Result<String> {
    let mut out = Report::new();
    let cells = shape.elements();
    let schedules = single_launch_schedules(seeds);
    let per_schedule = ShapeWork::single_launch_schedule(shape, block)?;
    let width = schedules.iter().map(|s| s.0.len()).max().unwrap_or(0);
    for (label, order, interleaving) in schedules {
        let grid = simulate_single_launch(shape, block, &order, interleaving)?;
        let wrong = wrong_cells(&grid, shape);
        progress(per_schedule);
        out.line(format!(
            "  {label:<width$}  {wrong:>4} of {cells} cells wrong: {}",
            report::flag(wrong == 0, if wrong == 0 { "correct" } else { "broken" })
        ));
    }
    Ok(out.into_string())
}

/// Beyond the source, part 2: one launch for everything, and why it fails.
pub fn single_launch_report() -> String {
    let mut out = Report::new();
    let (shape, block) = (Shape::new(16, 16), Dim2::new(4, 4));
    out.heading("One launch for the whole grid (wrong on purpose)");
    out.line(format!("{shape} table, {block} blocks, a single launch, compared with the scalar DP:"));
    out.line(single_launch_table(shape, block, &[1, 2], &mut |_| {}).expect("valid launch").trim_end());
    out.into_string()
}

/// Beyond the source, part 3: the tiled wavefront.
pub fn tiled_report() -> String {
    let mut out = Report::new();
    out.heading("Tiled wavefront: a block per tile, a launch per diagonal of tiles");
    out.line("(blocks shuffled in every launch, threads in lock-step between barriers)");
    let mut cases: Vec<(Shape, u32)> = SOURCE_DP_CASES.iter().map(|&shape| (shape, 4)).collect();
    cases.extend(TILED_TABLES);
    for (shape, tile) in cases {
        let (grid, launches) =
            simulate_tiled(shape, tile, &BlockOrder::Shuffled(shape.elements()), Interleaving::LockStep)
                .expect("valid launch");
        out.line(format!(
            "  {shape}, {tile}x{tile} tiles: {launches} launches instead of {}: the same table as scalar_dp: {}",
            diagonal_count(shape),
            report::verdict(grid == scalar_dp(shape))
        ));
    }
    out.into_string()
}

/// What [`shape_report`] will do, in simulated steps (a thread running one
/// step of a kernel, a cell of a walk or a fill), part by part. Worked out
/// from the shape before anything is allocated, so a run too large is
/// refused and a long one gets a progress bar. Saturates rather than
/// overflowing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeWork {
    /// The zigzag walk, its membership check and the scalar DP.
    pub reference: u64,
    pub wavefront: u64,
    pub tiled: u64,
    /// The binomial check of the far corner.
    pub binomial: u64,
    /// Every schedule of the single launch, with its comparison.
    pub single_launch: u64,
}

impl ShapeWork {
    /// What starting one simulated launch costs, in steps (its block order
    /// is drawn, and a shuffled one seeds a generator).
    pub const LAUNCH: u64 = 64;

    /// Checks every launch [`shape_report`] makes with `block_x`-thread
    /// wavefront blocks and `tile x tile` tiles, and counts its work.
    pub fn of(shape: Shape, block_x: u32, tile: u32, seeds: usize) -> Result<Self> {
        let block = Dim2::new(tile, tile);
        LaunchConfig::check_block(Dim2::new(block_x, 1)).with_context(|| format!("{block_x}-thread blocks"))?;
        LaunchConfig::check_block(block).with_context(|| format!("{tile}x{tile} tiles"))?;
        let cells = shape.elements();
        let launches = diagonal_count(shape);
        // Every diagonal's launch rounds its length up to whole blocks.
        let wavefront_threads = cells.saturating_add(launches.saturating_mul(block_x as u64));
        let t = tile as u64;
        let tiles = Shape::new(shape.rows.div_ceil(t), shape.cols.div_ceil(t));
        // Lock-step: two phases per step, every thread of every tile block.
        let tiled_threads = tiles.elements().saturating_mul(t * t).saturating_mul(2 * tiled_steps(tile) as u64);
        let schedules = 3 + seeds as u64;
        Ok(ShapeWork {
            reference: cells.saturating_mul(4),
            wavefront: wavefront_threads.saturating_add(launches.saturating_mul(Self::LAUNCH)),
            tiled: tiled_threads.saturating_add(diagonal_count(tiles).saturating_mul(Self::LAUNCH)),
            binomial: shape.rows.min(shape.cols).saturating_mul(16),
            single_launch: Self::single_launch_schedule(shape, block)?.saturating_mul(schedules),
        })
    }

    /// One schedule of the single launch: every thread (twice, for
    /// lock-step), then a scalar DP and a comparison.
    fn single_launch_schedule(shape: Shape, block: Dim2) -> Result<u64> {
        let cfg = single_launch_plan(shape, block)?.cfg;
        Ok(cfg.total_threads().saturating_mul(2).saturating_add(shape.elements().saturating_mul(2)))
    }

    pub fn total(&self) -> u64 {
        [self.reference, self.wavefront, self.tiled, self.binomial, self.single_launch]
            .into_iter()
            .fold(0, u64::saturating_add)
    }
}

/// The report for any shape: membership, both correct kernels, the broken
/// one. `progress` is told the work done after each part (see
/// [`ShapeWork`]).
pub fn shape_report(shape: Shape, block_x: u32, tile: u32, seed: u64, progress: &mut dyn FnMut(u64)) -> Result<String> {
    let work = ShapeWork::of(shape, block_x, tile, 1)?;
    let mut out = Report::new();
    let reference = scalar_dp(shape);
    let check = check_membership(shape);
    progress(work.reference);
    out.line(format!("{shape} table, {} diagonals", diagonal_count(shape)));
    out.line(format!(
        "  zigzag walk matches the closed-form membership and row bounds: {}",
        report::verdict(check.ok())
    ));
    let (grid, launches) = simulate_wavefront(shape, block_x, &BlockOrder::Shuffled(seed))?;
    progress(work.wavefront);
    out.line(format!(
        "  lattice_wavefront, block_dim_x={block_x}, {launches} launches: the same table as scalar_dp: {}",
        report::verdict(grid == reference)
    ));
    let (grid, launches) = simulate_tiled(shape, tile, &BlockOrder::Shuffled(seed), Interleaving::LockStep)?;
    progress(work.tiled);
    out.line(format!(
        "  lattice_tiled, {tile}x{tile} tiles, {launches} launches: the same table as scalar_dp: {}",
        report::verdict(grid == reference)
    ));
    let corner = reference[reference.len() - 1];
    let expect = binomial_mod(shape.rows + shape.cols - 2, shape.rows - 1);
    progress(work.binomial);
    out.line(format!(
        "  paths to the far corner (mod 2^{MODULUS_BITS}-1): {corner}, binomial check: {}",
        report::verdict(corner == expect)
    ));
    let block = Dim2::new(tile, tile);
    out.line(format!("  one launch for the whole grid, {block} blocks:"));
    for line in single_launch_table(shape, block, &[seed], progress)?.lines() {
        out.line(format!("  {line}"));
    }
    Ok(out.into_string())
}

/// What the binary prints by default before its GPU section: the worked
/// example, then what this book adds.
pub fn report() -> Vec<String> {
    vec![worked_example(), exactness_report(), single_launch_report(), tiled_report()]
}

/// Every output the K.7 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k7_diagonal.txt", worked_example()),
        ("k7_diagonal-exact.txt", exactness_report()),
        ("k7_diagonal-single-launch.txt", single_launch_report()),
        ("k7_diagonal-tiled.txt", tiled_report()),
        ("k7_diagonal-exercise.txt", exercises::shown()),
        ("k7_diagonal-find-the-bug.txt", exercises::find_the_bug_shown()),
        ("k7_diagonal-versions.txt", CHAPTER.ladder_text()),
    ]
}

pub const CHAPTER: ktrav::Chapter = ktrav::Chapter {
    id: "k7_diagonal",
    section: "K.7",
    title: "Diagonal order and the wavefront",
    report,
    shown_outputs,
    figures: figures::figures,
    kernel_source: Some(include_str!("../../../kernels/k7_diagonal.cu")),
    values: values::values,
    gpu: Some(&gpu::ENTRY),
    exercises: exercises::EXERCISES,
    sim_exercises: exercises::SIM_EXERCISES,
    versions: &VERSIONS,
};

#[cfg(test)]
mod tests;

// --- How fast can it go -------------------------------------------------------

/// The single-launch fills of `kernels/k7_diagonal.cu`, in order. Each takes
/// `(grid, rows, cols, work)` with rows and cols as `long long`; `work` is a
/// buffer of [`ktrav::ladder::Plan::work_words`] u64 zeroed once when
/// allocated, reusable by later launches, never shared by two at once.
///
/// What each kernel assumes of its block, which every plan is checked
/// against before a launch: the band sweep of v1 and v2 works warp by warp
/// (a lane's row, shuffles across all 32 lanes, a warp count of
/// `blockDim.x / 32`), so a block of whole warps; v3's first warp builds the
/// factorial tables alone, with shuffles across its 32 lanes, so at least
/// one warp; v4 stages a 32 x 32 tile per block and steps as one warp, so
/// exactly one, and so does v5, whose lanes, shuffles and stage are one
/// warp's. Their plans launch one warp per block.
pub const VERSIONS: [ktrav::ladder::Version; 5] = [
    ktrav::ladder::Version {
        kernel: "lattice_v1_systolic",
        block: ktrav::ladder::BlockRule::WholeWarps,
        static_shared: 0,
        plan: lattice_v1_plan,
    },
    ktrav::ladder::Version {
        kernel: "lattice_v2_systolic_2rows",
        block: ktrav::ladder::BlockRule::WholeWarps,
        static_shared: 0,
        plan: lattice_v2_plan,
    },
    ktrav::ladder::Version {
        kernel: "lattice_v3_binomial",
        block: ktrav::ladder::BlockRule::AtLeastOneWarp,
        // One word: the block's verdict on whether it builds the tables.
        static_shared: 8,
        plan: lattice_v3_plan,
    },
    ktrav::ladder::Version {
        kernel: "lattice_v4_systolic_staged",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 1)),
        static_shared: 32 * 32 * 8,
        plan: lattice_v4_plan,
    },
    ktrav::ladder::Version {
        kernel: "lattice_v5_skewed_staged",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 1)),
        // Two rows per lane, 32 lanes, 32 steps of a chunk, padded to 33.
        static_shared: 2 * 32 * 33 * 8,
        plan: lattice_v5_plan,
    },
];

/// The systolic versions: one warp-sized block per band of `32 *
/// rows_per_lane` rows, at most 1024 blocks (bands are handed out by a
/// counter), and a work buffer of two counters plus one flagged slot per
/// band and column.
fn systolic_plan(shape: Shape, rows_per_lane: u64) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    if shape.is_empty() {
        return Err(ktrav::GeometryError::ZeroExtent);
    }
    let bands = shape.rows.div_ceil(32 * rows_per_lane);
    let cfg = LaunchConfig { grid: Dim2::new(bands.min(1024) as u32, 1), block: Dim2::new(ktrav::ladder::WARP, 1) };
    Ok(ktrav::ladder::Plan { cfg, shared_bytes: 0, work_words: 2 + bands * shape.cols })
}

/// v1: 32-row bands.
pub fn lattice_v1_plan(shape: Shape, _sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    systolic_plan(shape, 1)
}

/// v2: 64-row bands.
pub fn lattice_v2_plan(shape: Shape, _sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    systolic_plan(shape, 2)
}

/// v3: 256-thread blocks writing whole rows, `min(rows, sms * 8)` of them,
/// and a work buffer of three words plus the two factorial tables.
pub fn lattice_v3_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    if shape.is_empty() {
        return Err(ktrav::GeometryError::ZeroExtent);
    }
    let blocks = shape.rows.min(sms.max(1) as u64 * ktrav::ladder::BLOCKS_PER_SM);
    let cfg = LaunchConfig { grid: Dim2::new(blocks as u32, 1), block: Dim2::new(256, 1) };
    Ok(ktrav::ladder::Plan { cfg, shared_bytes: 0, work_words: 3 + 2 * (shape.rows + shape.cols - 1) })
}

/// v4: as v1 (its tile is static shared memory).
pub fn lattice_v4_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    lattice_v1_plan(shape, sms)
}

/// v5: as v2, 64-row bands (its stage is static shared memory).
pub fn lattice_v5_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    lattice_v2_plan(shape, sms)
}
