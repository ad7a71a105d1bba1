//! Appendix K.7: diagonal order. Positions on one anti-diagonal
//! (`row + col == d`) are independent of each other; each depends only on
//! the diagonal before it. That, not how hard an index formula is, decides
//! how many kernel launches a computation needs.
//!
//! The chapter's kernels (`kernels/k7_diagonal.cu`) fill a lattice-path
//! table, `paths(r, c) = paths(r-1, c) + paths(r, c-1)`, three ways:
//!
//! * [`wavefront_step`]: one launch per diagonal, `rows + cols - 1` launches;
//! * [`single_launch_value`]: one launch for the whole grid, wrong on purpose;
//! * [`tiled_step`]: one block per tile, one launch per diagonal of tiles,
//!   cells inside a tile ordered by a barrier.
//!
//! Counts are kept modulo the prime `2^61 - 1` ([`MODULUS`]): the arithmetic
//! is exact at any size, equal to the true count while that is below the
//! modulus, and checkable against a closed-form binomial ([`binomial_mod`]).

pub mod figures;
pub mod gpu;

use ktrav::report::{self, Report};
use ktrav::{launch, launch_phased, BlockOrder, Dim2, GeometryError, LaunchConfig, Thread};

// ANCHOR: zigzag
/// The zigzag walk: diagonal by diagonal, alternating direction. Kept only
/// as the trusted reference for the closed forms below.
pub fn zigzag_order(rows: u64, cols: u64) -> Vec<(u64, u64)> {
    let mut order = Vec::with_capacity((rows * cols) as usize);
    if rows == 0 || cols == 0 {
        return order;
    }
    for d in 0..diagonal_count(rows, cols) {
        let (lo, hi) = (row_min(d, rows, cols), row_max(d, rows, cols));
        if d % 2 == 0 {
            (lo..=hi).rev().for_each(|r| order.push((r, d - r))); // up and to the right
        } else {
            (lo..=hi).for_each(|r| order.push((r, d - r))); // down and to the left
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
pub fn diagonal_count(rows: u64, cols: u64) -> u64 {
    rows + cols - 1
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
pub fn diagonal_len(d: u64, rows: u64, cols: u64) -> u64 {
    row_max(d, rows, cols) - row_min(d, rows, cols) + 1
}
// ANCHOR_END: bounds

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
pub fn check_membership(rows: u64, cols: u64) -> MembershipCheck {
    membership_of(&zigzag_order(rows, cols), rows, cols)
}

/// [`check_membership`] for any proposed walk of a `rows x cols` matrix.
pub fn membership_of(walk: &[(u64, u64)], rows: u64, cols: u64) -> MembershipCheck {
    let (mut at, mut on_own_diagonal, mut rows_within_bounds) = (0usize, true, true);
    for d in 0..diagonal_count(rows, cols) {
        let len = diagonal_len(d, rows, cols) as usize;
        let Some(run) = walk.get(at..at + len) else {
            on_own_diagonal = false;
            break;
        };
        on_own_diagonal &= run.iter().all(|&(r, c)| diagonal_of(r, c) == d && c < cols);
        let mut seen: Vec<u64> = run.iter().map(|&(r, _)| r).collect();
        seen.sort_unstable();
        rows_within_bounds &= seen.iter().copied().eq(row_min(d, rows, cols)..=row_max(d, rows, cols));
        at += len;
    }
    on_own_diagonal &= at == walk.len() && walk.len() as u64 == rows * cols;
    MembershipCheck { positions: rows * cols, on_own_diagonal, rows_within_bounds }
}

// ANCHOR: arithmetic
/// The Mersenne prime `2^61 - 1`. Two residues add to less than `2^62`, so
/// one conditional subtraction reduces the sum: exact, and never overflows.
pub const MODULUS: u64 = (1 << 61) - 1;

pub fn add_mod(a: u64, b: u64) -> u64 {
    let sum = a + b;
    if sum >= MODULUS {
        sum - MODULUS
    } else {
        sum
    }
}

/// The plain scalar fill every kernel is checked against: row by row, so
/// each cell's two inputs are always ready.
pub fn scalar_dp(rows: u64, cols: u64) -> Vec<u64> {
    let mut grid = vec![0u64; (rows * cols) as usize];
    for r in 0..rows {
        for c in 0..cols {
            let at = (r * cols + c) as usize;
            grid[at] = if r == 0 || c == 0 { 1 } else { add_mod(grid[at - cols as usize], grid[at - 1]) };
        }
    }
    grid
}
// ANCHOR_END: arithmetic

// ANCHOR: wavefront
/// One thread of the launch for diagonal `d`: thread `t` owns the
/// `t`-th position of the diagonal, counted from `row_min(d)`.
pub fn wavefront_step(t: Thread, grid: &mut [u64], rows: u64, cols: u64, d: u64) {
    let row = row_min(d, rows, cols) + t.global_x();
    if row > row_max(d, rows, cols) {
        return; // boundary check: past this diagonal's last row
    }
    let col = d - row;
    let at = (row * cols + col) as usize;
    grid[at] = if row == 0 || col == 0 {
        1
    } else {
        add_mod(grid[at - cols as usize], grid[at - 1]) // both on diagonal d - 1
    };
}

/// The launch for diagonal `d`: a 1D grid just long enough for the diagonal.
pub fn wavefront_config(d: u64, rows: u64, cols: u64, block_x: u32) -> Result<LaunchConfig, GeometryError> {
    LaunchConfig::covering(diagonal_len(d, rows, cols), 1, Dim2::new(block_x, 1))
}

/// The host's loop: `rows + cols - 1` launches, each finished before the
/// next starts. Returns the grid and the number of launches.
pub fn simulate_wavefront(
    rows: u64,
    cols: u64,
    block_x: u32,
    order: &BlockOrder,
) -> Result<(Vec<u64>, u64), GeometryError> {
    let mut grid = vec![0u64; (rows * cols) as usize];
    let mut launches = 0;
    for d in 0..diagonal_count(rows, cols) {
        let cfg = wavefront_config(d, rows, cols, block_x)?;
        launch(&cfg, order, |t| wavefront_step(t, &mut grid, rows, cols, d));
        launches += 1;
    }
    Ok((grid, launches))
}
// ANCHOR_END: wavefront

// ANCHOR: single_launch
/// The same cell update, launched ONCE over the whole grid (wrong on
/// purpose). Split at its one load/store boundary: this is the load half,
/// returning the slot to write and the value to write there.
pub fn single_launch_value(t: Thread, grid: &[u64], rows: u64, cols: u64) -> Option<(usize, u64)> {
    let row = t.global_y();
    let col = t.global_x();
    if row >= rows || col >= cols {
        return None;
    }
    let at = (row * cols + col) as usize;
    let value = if row == 0 || col == 0 {
        1
    } else {
        add_mod(grid[at - cols as usize], grid[at - 1]) // finished yet? nothing says so
    };
    Some((at, value))
}

/// How the threads of one block interleave. Without a barrier, both are legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interleaving {
    /// Each thread loads and stores before the next thread starts.
    OneAtATime,
    /// Every thread of the block loads, then every thread stores: what a
    /// warp executing in lock-step does.
    LockStep,
}

/// One launch for the whole grid, blocks in `order`, threads `interleaving`.
pub fn simulate_single_launch(
    rows: u64,
    cols: u64,
    block: Dim2,
    order: &BlockOrder,
    interleaving: Interleaving,
) -> Result<Vec<u64>, GeometryError> {
    let cfg = LaunchConfig::for_matrix(rows, cols, block)?;
    let mut grid = vec![0u64; (rows * cols) as usize]; // cudaMemset(grid, 0, ...)
    match interleaving {
        Interleaving::OneAtATime => launch(&cfg, order, |t| {
            if let Some((at, value)) = single_launch_value(t, &grid, rows, cols) {
                grid[at] = value; // the store half
            }
        }),
        Interleaving::LockStep => {
            launch_phased(&cfg, order, 2, Vec::new, |t, phase, loaded: &mut Vec<Option<(usize, u64)>>| {
                if phase == 0 {
                    loaded.push(single_launch_value(t, &grid, rows, cols));
                } else if let Some((at, value)) = loaded[t.linear_in_block() as usize] {
                    grid[at] = value;
                }
            })
        }
    }
    Ok(grid)
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

/// One thread of a tile x tile block in step `step` of `2 * tile - 1`: the
/// load half of its update, the slot and the value, or `None` when it has no
/// cell in this step. In CUDA the steps are the iterations of a loop ending
/// in `__syncthreads()`: in iteration `e`, the threads with `tx + ty == e`
/// (the tile's own `e`-th diagonal) update their cell.
pub fn tiled_value(t: Thread, step: usize, grid: &[u64], rows: u64, cols: u64, tile_d: u64) -> Option<(usize, u64)> {
    let tile = t.block_dim.x as u64;
    let (tile_row, tile_col) = tile_of(t, rows, cols, tile_d);
    let row = tile_row * tile + t.thread_idx.y as u64;
    let col = tile_col * tile + t.thread_idx.x as u64;
    let on_this_diagonal = (t.thread_idx.x + t.thread_idx.y) as usize == step;
    if !(on_this_diagonal && row < rows && col < cols) {
        return None;
    }
    let at = (row * cols + col) as usize;
    Some((at, if row == 0 || col == 0 { 1 } else { add_mod(grid[at - cols as usize], grid[at - 1]) }))
}

/// The host's loop for the tiled version: one launch per diagonal of tiles,
/// one `tile x tile` block per tile on it. Each step ends at a barrier (a
/// phase boundary of the simulator); `interleaving` says how the threads of
/// a block run between two barriers.
pub fn simulate_tiled(
    rows: u64,
    cols: u64,
    tile: u32,
    order: &BlockOrder,
    interleaving: Interleaving,
) -> Result<(Vec<u64>, u64), GeometryError> {
    let block = Dim2::new(tile, tile);
    LaunchConfig::check_block(block)?;
    let (tiles_down, tiles_across) = (rows.div_ceil(tile as u64), cols.div_ceil(tile as u64));
    let steps = 2 * tile as usize - 1;
    let mut grid = vec![0u64; (rows * cols) as usize];
    let mut launches = 0;
    for tile_d in 0..diagonal_count(tiles_down, tiles_across) {
        let blocks = diagonal_len(tile_d, tiles_down, tiles_across);
        let cfg = LaunchConfig::covering(blocks * tile as u64, tile as u64, block)?; // grid = (blocks, 1)
        match interleaving {
            Interleaving::OneAtATime => launch_phased(
                &cfg,
                order,
                steps,
                || (),
                |t, step, _| {
                    if let Some((at, value)) = tiled_value(t, step, &grid, rows, cols, tile_d) {
                        grid[at] = value;
                    }
                },
            ),
            // Two phases per step: every thread loads, then every thread
            // stores, then the barrier. Only a barrier keeps this correct.
            Interleaving::LockStep => {
                let slots = block.count() as usize;
                launch_phased(
                    &cfg,
                    order,
                    2 * steps,
                    || vec![None; slots],
                    |t, phase, loaded: &mut Vec<Option<(usize, u64)>>| {
                        let me = t.linear_in_block() as usize;
                        if phase % 2 == 0 {
                            loaded[me] = tiled_value(t, phase / 2, &grid, rows, cols, tile_d);
                        } else if let Some((at, value)) = loaded[me] {
                            grid[at] = value;
                        }
                    },
                )
            }
        }
        launches += 1;
    }
    Ok((grid, launches))
}
// ANCHOR_END: tiled

/// `C(n, k) mod MODULUS`, from the multiplicative formula with modular
/// inverses (the modulus is prime and larger than any `n` used here).
/// Independent of the recurrence, so it checks the DP as well as the kernels.
pub fn binomial_mod(n: u64, k: u64) -> u64 {
    let k = k.min(n - k);
    let (mut num, mut den) = (1u64, 1u64);
    for i in 0..k {
        num = mul_mod(num, (n - i) % MODULUS);
        den = mul_mod(den, (i + 1) % MODULUS);
    }
    mul_mod(num, pow_mod(den, MODULUS - 2))
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
pub fn wrong_cells(grid: &[u64], rows: u64, cols: u64) -> u64 {
    grid.iter().zip(scalar_dp(rows, cols)).filter(|(a, b)| **a != *b).count() as u64
}

/// The source's six membership shapes and five DP cases (block_dim_x = 4).
pub const SOURCE_SHAPES: [(u64, u64); 6] = [(3, 3), (4, 5), (5, 4), (1, 6), (6, 1), (7, 7)];
pub const SOURCE_DP_CASES: [(u64, u64); 5] = [(5, 5), (6, 9), (9, 6), (1, 8), (8, 1)];
pub const SOURCE_BLOCK_X: u32 = 4;

fn sequence_3x3() -> String {
    zigzag_order(3, 3).iter().map(|&(r, c)| (r * 3 + c + 1).to_string()).collect::<Vec<_>>().join(" ")
}

/// The worked example: every figure of the source's K.7 output.
pub fn worked_example() -> String {
    let mut out = Report::new();
    out.heading("K.7: diagonal order, and the wavefront dependency it exposes");
    out.blank();
    out.line("The zigzag walk of a 3x3 matrix holding 1..9:");
    let walked = sequence_3x3();
    out.line(format!("  walked:   {walked}"));
    out.line("  expected: 1 2 4 7 5 3 6 8 9");
    out.line(format!("  same: {}", report::verdict(walked == "1 2 4 7 5 3 6 8 9")));
    out.blank();

    out.heading("Closed-form diagonal membership against the zigzag walk");
    let mut all_shapes = true;
    for (rows, cols) in SOURCE_SHAPES {
        let check = check_membership(rows, cols);
        all_shapes &= check.ok();
        out.line(format!(
            "  {rows}x{cols}: each walked position sits on its row+col diagonal, rows within row_min..=row_max: {}",
            report::verdict(check.ok())
        ));
    }
    out.blank();
    out.line(format!(
        "all {} shapes: closed-form membership and row bounds match the zigzag walk: {}",
        SOURCE_SHAPES.len(),
        report::verdict(all_shapes)
    ));
    out.blank();

    out.heading("lattice_wavefront through the simulator, one launch per diagonal");
    let mut all_dp = true;
    for (rows, cols) in SOURCE_DP_CASES {
        let (grid, launches) = simulate_wavefront(rows, cols, SOURCE_BLOCK_X, &BlockOrder::Forward)
            .expect("the source's launch shapes are valid");
        let ok = grid == scalar_dp(rows, cols);
        all_dp &= ok;
        out.line(format!(
            "  {rows}x{cols}, block_dim_x={SOURCE_BLOCK_X}, {launches} launches (one per diagonal): matches the scalar DP: {}",
            report::verdict(ok)
        ));
    }
    out.blank();
    out.line(format!("all {} DP cases verified correct: {}", SOURCE_DP_CASES.len(), report::verdict(all_dp)));
    out.into_string()
}

/// Beyond the source, part 1: what the table holds, and why integers.
pub fn exactness_report() -> String {
    let mut out = Report::new();
    out.heading("What the table holds: exact counts, not floats");
    for (rows, cols) in SOURCE_DP_CASES {
        let (grid, _) = simulate_wavefront(rows, cols, SOURCE_BLOCK_X, &BlockOrder::Reverse).expect("valid launch");
        let corner = grid[grid.len() - 1];
        let n = rows + cols - 2;
        out.line(format!(
            "  {rows}x{cols}: paths to the far corner = {corner}, C({n}, {}) = {}: {}",
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
    let (rows, cols) = (500, 700);
    let (grid, launches) = simulate_wavefront(rows, cols, 128, &BlockOrder::Shuffled(7)).expect("valid launch");
    let corner = grid[grid.len() - 1];
    let expect = binomial_mod(rows + cols - 2, rows - 1);
    out.line(format!(
        "  {rows}x{cols}, {launches} launches: corner = {corner} (mod 2^61-1), C({}, {}) mod 2^61-1 = {expect}: {}",
        rows + cols - 2,
        rows - 1,
        report::verdict(corner == expect && grid == scalar_dp(rows, cols))
    ));
    out.into_string()
}

/// The single-launch table for one shape: wrong cells per schedule.
pub fn single_launch_table(rows: u64, cols: u64, block: Dim2, seeds: &[u64]) -> Result<String, GeometryError> {
    let mut out = Report::new();
    let cells = rows * cols;
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
    let width = schedules.iter().map(|s| s.0.len()).max().unwrap_or(0);
    for (label, order, interleaving) in schedules {
        let grid = simulate_single_launch(rows, cols, block, &order, interleaving)?;
        let wrong = wrong_cells(&grid, rows, cols);
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
    let (rows, cols, block) = (16, 16, Dim2::new(4, 4));
    out.heading("One launch for the whole grid (wrong on purpose)");
    out.line(format!("{rows}x{cols} table, {block} blocks, a single launch, compared with the scalar DP:"));
    out.line(single_launch_table(rows, cols, block, &[1, 2]).expect("valid launch").trim_end());
    out.into_string()
}

/// Beyond the source, part 3: the tiled wavefront.
pub fn tiled_report() -> String {
    let mut out = Report::new();
    out.heading("Tiled wavefront: a block per tile, a launch per diagonal of tiles");
    out.line("(blocks shuffled in every launch, threads in lock-step between barriers)");
    let mut cases: Vec<(u64, u64, u32)> = SOURCE_DP_CASES.iter().map(|&(r, c)| (r, c, 4)).collect();
    cases.push((500, 700, 16));
    cases.push((1024, 1024, 32));
    for (rows, cols, tile) in cases {
        let (grid, launches) =
            simulate_tiled(rows, cols, tile, &BlockOrder::Shuffled(rows * cols), Interleaving::LockStep)
                .expect("valid launch");
        out.line(format!(
            "  {rows}x{cols}, {tile}x{tile} tiles: {launches} launches instead of {}: matches the scalar DP: {}",
            diagonal_count(rows, cols),
            report::verdict(grid == scalar_dp(rows, cols))
        ));
    }
    out.into_string()
}

/// The report for any shape: membership, both correct kernels, the broken one.
pub fn shape_report(rows: u64, cols: u64, block_x: u32, tile: u32, seed: u64) -> Result<String, GeometryError> {
    LaunchConfig::check_block(Dim2::new(block_x, 1))?;
    LaunchConfig::check_block(Dim2::new(tile, tile))?;
    let mut out = Report::new();
    let reference = scalar_dp(rows, cols);
    let check = check_membership(rows, cols);
    out.line(format!("{rows}x{cols} table, {} diagonals", diagonal_count(rows, cols)));
    out.line(format!(
        "  zigzag walk matches the closed-form membership and row bounds: {}",
        report::verdict(check.ok())
    ));
    let (grid, launches) = simulate_wavefront(rows, cols, block_x, &BlockOrder::Shuffled(seed))?;
    out.line(format!(
        "  lattice_wavefront, block_dim_x={block_x}, {launches} launches: matches the scalar DP: {}",
        report::verdict(grid == reference)
    ));
    let (grid, launches) = simulate_tiled(rows, cols, tile, &BlockOrder::Shuffled(seed), Interleaving::LockStep)?;
    out.line(format!(
        "  lattice_tiled, {tile}x{tile} tiles, {launches} launches: matches the scalar DP: {}",
        report::verdict(grid == reference)
    ));
    let corner = reference[reference.len() - 1];
    let expect = binomial_mod(rows + cols - 2, rows - 1);
    out.line(format!(
        "  paths to the far corner (mod 2^61-1): {corner}, binomial check: {}",
        report::verdict(corner == expect)
    ));
    let block = Dim2::new(tile, tile);
    out.line(format!("  one launch for the whole grid, {block} blocks:"));
    for line in single_launch_table(rows, cols, block, &[seed])?.lines() {
        out.line(format!("  {line}"));
    }
    Ok(out.into_string())
}

/// Every output the K.7 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k7_diagonal.txt", worked_example()),
        ("k7_diagonal-exact.txt", exactness_report()),
        ("k7_diagonal-single-launch.txt", single_launch_report()),
        ("k7_diagonal-tiled.txt", tiled_report()),
    ]
}

#[cfg(test)]
mod tests;
