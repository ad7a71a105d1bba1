//! Appendix K.6: spiral order. A traversal that looks strictly sequential
//! still has an O(1) closed form, so every CUDA thread can compute its own
//! place in it.
//!
//! The chapter has three layers, each checked against the one before:
//!
//! 1. [`spiral_order`], the plain ring-peeling walk everyone already trusts;
//! 2. [`spiral_rank`], the closed form `(row, col) -> rank`, and its inverse
//!    [`spiral_position`], `rank -> (row, col)`;
//! 3. two kernels built on them, [`scatter`] (one thread per input element,
//!    writes land wherever the rank says) and [`gather`] (one thread per output
//!    slot, reads come from wherever the inverse says), run through
//!    [`ktrav::sim`] exactly as `kernels/k6_spiral.cu` would run on a GPU.

pub mod gpu;

use ktrav::report::{self, Report};
use ktrav::{launch, BlockOrder, Dim2, GeometryError, LaunchConfig, Thread};
use std::collections::HashSet;
use std::fmt::Write as _;

// ANCHOR: sequential
/// The spiral walk the obvious way: four shrinking bounds, one side of the
/// current ring at a time. Each position is appended only after every
/// position before it, which is exactly what makes it look sequential.
pub fn spiral_order(rows: u64, cols: u64) -> Vec<(u64, u64)> {
    let mut order = Vec::with_capacity((rows * cols) as usize);
    if rows == 0 || cols == 0 {
        return order;
    }
    // Signed bounds: `bottom` and `right` may step past `top` and `left`.
    let (mut top, mut bottom, mut left, mut right) = (0i64, rows as i64 - 1, 0i64, cols as i64 - 1);
    let mut push = |r: i64, c: i64| order.push((r as u64, c as u64));
    while top <= bottom && left <= right {
        (left..=right).for_each(|c| push(top, c)); // top side, left to right
        top += 1;
        (top..=bottom).for_each(|r| push(r, right)); // right side, downwards
        right -= 1;
        if top <= bottom {
            (left..=right).rev().for_each(|c| push(bottom, c)); // bottom side, right to left
            bottom -= 1;
        }
        if left <= right {
            (top..=bottom).rev().for_each(|r| push(r, left)); // left side, upwards
            left += 1;
        }
    }
    order
}
// ANCHOR_END: sequential

// ANCHOR: ring
/// The ring a position lies on: its distance to the nearest edge.
pub fn ring_of(row: u64, col: u64, rows: u64, cols: u64) -> u64 {
    row.min(col).min(rows - 1 - row).min(cols - 1 - col)
}

/// The first rank on ring `k`: peeling `k` rings off a `rows x cols`
/// matrix removes everything outside the `(rows-2k) x (cols-2k)` core.
pub fn ring_start(k: u64, rows: u64, cols: u64) -> u64 {
    rows * cols - (rows - 2 * k) * (cols - 2 * k)
}

/// The innermost ring's number: a matrix has `ceil(min(rows, cols) / 2)` rings.
pub fn last_ring(rows: u64, cols: u64) -> u64 {
    (rows.min(cols) - 1) / 2
}
// ANCHOR_END: ring

// ANCHOR: rank
/// Where `(row, col)` falls in spiral order, in O(1): the start of its ring
/// plus its offset along that ring. Nothing here looks at another position.
pub fn spiral_rank(row: u64, col: u64, rows: u64, cols: u64) -> u64 {
    let k = ring_of(row, col, rows, cols);
    let start = ring_start(k, rows, cols);
    let (top, left) = (k, k);
    let (bottom, right) = (rows - 1 - k, cols - 1 - k);
    let (width, height) = (right - left + 1, bottom - top + 1);
    // A ring that is a lone row is all top side; a lone column is all
    // right side. Testing the sides in walk order handles both.
    if row == top {
        start + (col - left) // top side: left to right
    } else if col == right {
        start + (width - 1) + (row - top) // right side: downwards
    } else if row == bottom {
        start + (width - 1) + (height - 1) + (right - col) // bottom side: right to left
    } else {
        start + 2 * (width - 1) + (height - 1) + (bottom - row) // left side: upwards
    }
}
// ANCHOR_END: rank

// ANCHOR: inverse
/// The ring that holds `rank`: the largest `k` with `ring_start(k) <= rank`.
///
/// `ring_start(k) = 2k(rows + cols - 2k)` is a quadratic in `k`, so its
/// smaller root gives `k` directly: `k = rank / (s + sqrt(s^2 - 4 rank))`
/// with `s = rows + cols` (the cancellation-free form of
/// `(s - sqrt(s^2 - 4 rank)) / 4`). Floating point only supplies the
/// estimate; two integer corrections make the answer exact.
pub fn ring_containing(rank: u64, rows: u64, cols: u64) -> u64 {
    let s = rows + cols;
    let disc = s * s - 4 * rank; // >= (rows - cols)^2, never negative
    let estimate = (rank as f64 / (s as f64 + (disc as f64).sqrt())) as u64;
    let mut k = estimate.min(last_ring(rows, cols));
    while k > 0 && ring_start(k, rows, cols) > rank {
        k -= 1; // the estimate was one too high
    }
    while k < last_ring(rows, cols) && ring_start(k + 1, rows, cols) <= rank {
        k += 1; // the estimate was one too low
    }
    k
}

/// The inverse closed form: the position spiral order visits at `rank`.
pub fn spiral_position(rank: u64, rows: u64, cols: u64) -> (u64, u64) {
    let k = ring_containing(rank, rows, cols);
    let offset = rank - ring_start(k, rows, cols);
    let (top, left) = (k, k);
    let (bottom, right) = (rows - 1 - k, cols - 1 - k);
    let (width, height) = (right - left + 1, bottom - top + 1);
    // The same four sides, located by how far along the ring `offset` is.
    if offset < width {
        (top, left + offset) // top side (all of a lone row)
    } else if offset < width + height - 1 {
        (top + offset - (width - 1), right) // right side (all of a lone column)
    } else if offset < 2 * width + height - 2 {
        (bottom, right - (offset - (width - 1) - (height - 1))) // bottom side
    } else {
        (bottom - (offset - 2 * (width - 1) - (height - 1)), left) // left side
    }
}
// ANCHOR_END: inverse

// ANCHOR: kernels
/// Scatter, one thread per INPUT element: read `in[row][col]` (coalesced),
/// write it to `out[rank]` (wherever the spiral puts it).
/// Returns the (read, write) flat indices, or `None` for an idle thread.
pub fn scatter_indices(t: Thread, rows: u64, cols: u64) -> Option<(u64, u64)> {
    let row = t.global_y(); // blockIdx.y * blockDim.y + threadIdx.y
    let col = t.global_x(); // blockIdx.x * blockDim.x + threadIdx.x
    if row >= rows || col >= cols {
        return None; // boundary check on both axes
    }
    let from = row * cols + col;
    let to = spiral_rank(row, col, rows, cols);
    Some((from, to))
}

/// Gather, one thread per OUTPUT slot: the output is laid out as the same
/// `rows x cols` grid, so thread `(row, col)` owns `rank = row * cols + col`
/// and writes it (coalesced) after reading from wherever the inverse says.
pub fn gather_indices(t: Thread, rows: u64, cols: u64) -> Option<(u64, u64)> {
    let row = t.global_y();
    let col = t.global_x();
    if row >= rows || col >= cols {
        return None;
    }
    let to = row * cols + col;
    let (src_row, src_col) = spiral_position(to, rows, cols);
    let from = src_row * cols + src_col;
    Some((from, to))
}

/// The body both kernels share once their indices are known: `out[to] = in[from]`.
pub fn scatter<T: Copy>(t: Thread, input: &[T], out: &mut [T], rows: u64, cols: u64) {
    if let Some((from, to)) = scatter_indices(t, rows, cols) {
        out[to as usize] = input[from as usize];
    }
}

pub fn gather<T: Copy>(t: Thread, input: &[T], out: &mut [T], rows: u64, cols: u64) {
    if let Some((from, to)) = gather_indices(t, rows, cols) {
        out[to as usize] = input[from as usize];
    }
}
// ANCHOR_END: kernels

/// Which of the two kernels to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Scatter,
    Gather,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scatter => "spiral_scatter",
            Kernel::Gather => "spiral_gather",
        }
    }

    pub fn indices(self, t: Thread, rows: u64, cols: u64) -> Option<(u64, u64)> {
        match self {
            Kernel::Scatter => scatter_indices(t, rows, cols),
            Kernel::Gather => gather_indices(t, rows, cols),
        }
    }
}

// ANCHOR: simulate
/// One launch of `kernel` over a `rows x cols` input (row-major), blocks run
/// in `order`. The output is the input rearranged into spiral order.
pub fn simulate<T: Copy + Default>(
    kernel: Kernel,
    input: &[T],
    rows: u64,
    cols: u64,
    block: Dim2,
    order: &BlockOrder,
) -> Result<Vec<T>, GeometryError> {
    let cfg = LaunchConfig::for_matrix(rows, cols, block)?;
    let mut out = vec![T::default(); input.len()];
    launch(&cfg, order, |t| match kernel {
        Kernel::Scatter => scatter(t, input, &mut out, rows, cols),
        Kernel::Gather => gather(t, input, &mut out, rows, cols),
    });
    Ok(out)
}

/// The reference the kernels must reproduce, built from the sequential walk
/// alone: `reference[rank]` is the element the walk visits `rank`-th.
pub fn reference<T: Copy>(input: &[T], rows: u64, cols: u64) -> Vec<T> {
    spiral_order(rows, cols).into_iter().map(|(r, c)| input[(r * cols + c) as usize]).collect()
}
// ANCHOR_END: simulate

/// How one shape fares: does each closed form agree with the walk everywhere?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeCheck {
    pub positions: u64,
    /// `spiral_rank` gives every walked position its walk index.
    pub rank_matches_walk: bool,
    /// `spiral_position` gives every walk index its walked position.
    pub position_matches_walk: bool,
}

impl ShapeCheck {
    pub fn ok(&self) -> bool {
        self.rank_matches_walk && self.position_matches_walk
    }
}

/// Compares both closed forms with the sequential walk at every position.
/// The walk visits each position once, so agreement with it also proves
/// that both closed forms are bijections onto `0..rows*cols`.
pub fn cross_check(rows: u64, cols: u64) -> ShapeCheck {
    let walk = spiral_order(rows, cols);
    let n = rows * cols;
    // The walk must itself be a permutation for agreement to mean anything.
    let mut seen = vec![false; n as usize];
    let walk_is_permutation = walk.len() as u64 == n
        && walk
            .iter()
            .all(|&(r, c)| r < rows && c < cols && !std::mem::replace(&mut seen[(r * cols + c) as usize], true));
    let rank_matches_walk =
        walk_is_permutation && walk.iter().enumerate().all(|(i, &(r, c))| spiral_rank(r, c, rows, cols) == i as u64);
    let position_matches_walk =
        walk_is_permutation && walk.iter().enumerate().all(|(i, &p)| spiral_position(i as u64, rows, cols) == p);
    ShapeCheck { positions: n, rank_matches_walk, position_matches_walk }
}

/// Average number of distinct 128-byte segments one warp touches when it
/// reads, and when it writes, 4-byte elements: 1.00 is perfectly coalesced,
/// 32.00 means every thread of the warp hits its own segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coalescing {
    pub warps: u64,
    pub read_segments: f64,
    pub write_segments: f64,
}

/// Runs `kernel`'s index computation through the simulator and counts the
/// memory segments each warp's load and store instructions touch.
pub fn coalescing(kernel: Kernel, rows: u64, cols: u64, block: Dim2) -> Result<Coalescing, GeometryError> {
    const ELEM_BYTES: u64 = 4;
    const SEGMENT_BYTES: u64 = 128;
    let cfg = LaunchConfig::for_matrix(rows, cols, block)?;
    // (block, warp) -> the segments its loads and its stores touch.
    let mut reads: std::collections::BTreeMap<(u64, u32), HashSet<u64>> = Default::default();
    let mut writes: std::collections::BTreeMap<(u64, u32), HashSet<u64>> = Default::default();
    launch(&cfg, &BlockOrder::Forward, |t| {
        if let Some((from, to)) = kernel.indices(t, rows, cols) {
            let warp = (t.linear_block(), t.linear_in_block() / 32);
            reads.entry(warp).or_default().insert(from * ELEM_BYTES / SEGMENT_BYTES);
            writes.entry(warp).or_default().insert(to * ELEM_BYTES / SEGMENT_BYTES);
        }
    });
    let warps = reads.len() as u64;
    let avg = |m: &std::collections::BTreeMap<(u64, u32), HashSet<u64>>| {
        m.values().map(|s| s.len() as u64).sum::<u64>() as f64 / warps as f64
    };
    Ok(Coalescing { warps, read_segments: avg(&reads), write_segments: avg(&writes) })
}

/// The rank of every position, drawn as the matrix itself.
pub fn rank_grid(rows: u64, cols: u64) -> String {
    let width = (rows * cols - 1).to_string().len().max(2);
    let mut out = String::new();
    for r in 0..rows {
        out.push(' ');
        for c in 0..cols {
            write!(out, " {:>width$}", spiral_rank(r, c, rows, cols)).unwrap();
        }
        out.push('\n');
    }
    out
}

/// The source's ten shapes for the exhaustive cross-check.
pub const SOURCE_SHAPES: [(u64, u64); 10] =
    [(1, 1), (1, 5), (5, 1), (3, 3), (4, 4), (4, 5), (5, 4), (7, 7), (6, 9), (9, 6)];

/// Shapes whose innermost ring has collapsed to a lone row or column inside
/// an outer ring (the source's non-square shapes all end in a full ring).
pub const COLLAPSED_RING_SHAPES: [(u64, u64); 4] = [(3, 5), (5, 3), (3, 7), (7, 3)];

/// The innermost ring of a `rows x cols` spiral: its number and the shape of
/// the core it walks.
pub fn innermost_ring(rows: u64, cols: u64) -> (u64, u64, u64) {
    let k = (rows.min(cols) - 1) / 2;
    (k, rows - 2 * k, cols - 2 * k)
}

/// The source's four kernel cases: (rows, cols), all with 4x4 blocks.
pub const SOURCE_KERNEL_CASES: [(u64, u64); 4] = [(4, 4), (7, 5), (9, 6), (6, 9)];
pub const SOURCE_BLOCK: Dim2 = Dim2::new(4, 4);

/// One kernel case: launch shape and whether the output matches the reference.
fn kernel_case_line(
    kernel: Kernel,
    rows: u64,
    cols: u64,
    block: Dim2,
    order: &BlockOrder,
) -> Result<(String, bool), GeometryError> {
    let input: Vec<u32> = (0..(rows * cols) as u32).collect();
    let out = simulate(kernel, &input, rows, cols, block, order)?;
    let ok = out == reference(&input, rows, cols);
    let cfg = LaunchConfig::for_matrix(rows, cols, block)?;
    let idle = cfg.waste(cols, rows).total;
    let blocks = cfg.blocks();
    let plural = if blocks == 1 { "" } else { "s" };
    Ok((
        format!(
            "  {rows}x{cols}, block={block} ({blocks} block{plural}, {idle} idle threads): output equals the walk's reference: {}",
            report::verdict(ok)
        ),
        ok,
    ))
}

fn sequence_3x3() -> String {
    spiral_order(3, 3).iter().map(|&(r, c)| (r * 3 + c + 1).to_string()).collect::<Vec<_>>().join(" ")
}

/// The worked example: every figure of the source's K.6 output.
pub fn worked_example() -> String {
    let mut out = Report::new();
    out.heading("K.6: spiral order's closed form, checked position by position");
    out.blank();
    out.line("The sequential walk of a 3x3 matrix holding 1..9:");
    let walked = sequence_3x3();
    out.line(format!("  walked:   {walked}"));
    out.line("  expected: 1 2 3 6 9 8 7 4 5");
    out.line(format!("  same: {}", report::verdict(walked == "1 2 3 6 9 8 7 4 5")));
    out.blank();

    out.line("Closed-form rank against the sequential walk, at every position:");
    let mut all_shapes = true;
    for (rows, cols) in SOURCE_SHAPES {
        let check = cross_check(rows, cols);
        all_shapes &= check.rank_matches_walk;
        out.line(format!(
            "  {rows}x{cols}: rank agrees with the walk at all {} positions: {}",
            check.positions,
            report::verdict(check.rank_matches_walk)
        ));
    }
    out.blank();
    out.line("Shapes whose innermost ring collapses to a lone row or column:");
    for (rows, cols) in COLLAPSED_RING_SHAPES {
        let check = cross_check(rows, cols);
        all_shapes &= check.rank_matches_walk;
        let (k, core_rows, core_cols) = innermost_ring(rows, cols);
        let kind = if core_rows == 1 { "row" } else { "column" };
        out.line(format!(
            "  {rows}x{cols}: ring {k} is a lone {core_rows}x{core_cols} {kind}; rank agrees with the walk at all {} positions: {}",
            check.positions,
            report::verdict(check.rank_matches_walk)
        ));
    }
    out.blank();
    out.line(format!(
        "all {} shapes: closed form and sequential walk agree everywhere: {}",
        SOURCE_SHAPES.len() + COLLAPSED_RING_SHAPES.len(),
        report::verdict(all_shapes)
    ));
    out.blank();

    out.heading("spiral_scatter through the grid simulator, divisible and ragged shapes");
    let mut all_kernel = true;
    for (rows, cols) in SOURCE_KERNEL_CASES {
        let (line, ok) = kernel_case_line(Kernel::Scatter, rows, cols, SOURCE_BLOCK, &BlockOrder::Forward)
            .expect("the source's launch shapes are valid");
        all_kernel &= ok;
        out.line(line);
    }
    out.blank();
    out.line(format!(
        "all {} kernel cases verified correct: {}",
        SOURCE_KERNEL_CASES.len(),
        report::verdict(all_kernel)
    ));
    out.into_string()
}

/// Beyond the source: the inverse closed form, the gather kernel, an
/// exhaustive check up to 64x64, and which side of each copy coalesces.
pub fn beyond_the_source() -> String {
    let mut out = Report::new();
    out.heading("The inverse closed form: rank -> (row, col)");
    out.blank();
    out.line("Spiral rank of every position of a 4x5 matrix:");
    out.line(rank_grid(4, 5).trim_end());
    out.blank();
    let mut inverse_ok = true;
    for (rows, cols) in SOURCE_SHAPES {
        inverse_ok &= cross_check(rows, cols).position_matches_walk;
    }
    out.line(format!(
        "position(rank) returns the walked position at every rank of the {} shapes: {}",
        SOURCE_SHAPES.len(),
        report::verdict(inverse_ok)
    ));
    let (mut shapes, mut positions, mut all_ok) = (0u64, 0u64, true);
    for rows in 1..=64 {
        for cols in 1..=64 {
            let check = cross_check(rows, cols);
            shapes += 1;
            positions += check.positions;
            all_ok &= check.ok();
        }
    }
    out.line(format!(
        "every shape from 1x1 to 64x64 ({shapes} shapes, {positions} positions): both forms agree with the walk: {}",
        report::verdict(all_ok)
    ));
    out.blank();

    out.heading("spiral_gather through the grid simulator, the same four cases");
    let mut all_gather = true;
    for (rows, cols) in SOURCE_KERNEL_CASES {
        let (line, ok) = kernel_case_line(Kernel::Gather, rows, cols, SOURCE_BLOCK, &BlockOrder::Reverse)
            .expect("the source's launch shapes are valid");
        all_gather &= ok;
        out.line(line);
    }
    out.line(format!(
        "all {} gather cases verified correct (blocks run in reverse): {}",
        SOURCE_KERNEL_CASES.len(),
        report::verdict(all_gather)
    ));
    out.blank();

    out.heading("Which side of the copy coalesces");
    let (rows, cols, block) = (64, 64, Dim2::new(32, 8));
    out.line(format!("{rows}x{cols} floats, {block} blocks: 128-byte segments touched per warp instruction (1 is ideal, 32 the worst):"));
    for kernel in [Kernel::Scatter, Kernel::Gather] {
        let c = coalescing(kernel, rows, cols, block).expect("a valid launch");
        out.line(format!(
            "  {:<14}  loads {:>5.2}   stores {:>5.2}   ({} warps)",
            kernel.name(),
            c.read_segments,
            c.write_segments,
            c.warps
        ));
    }
    out.into_string()
}

/// The report for any shape and block: both closed forms and both kernels.
pub fn shape_report(rows: u64, cols: u64, block: Dim2) -> Result<String, GeometryError> {
    let cfg = LaunchConfig::for_matrix(rows, cols, block)?;
    let mut out = Report::new();
    out.line(format!(
        "{rows}x{cols} matrix, {block} blocks, grid {} ({} threads for {} elements)",
        cfg.grid,
        cfg.total_threads(),
        rows * cols
    ));
    let check = cross_check(rows, cols);
    out.line(format!(
        "  rank(row, col) agrees with the walk at all {} positions: {}",
        check.positions,
        report::verdict(check.rank_matches_walk)
    ));
    out.line(format!(
        "  position(rank) agrees with the walk at all {} ranks: {}",
        check.positions,
        report::verdict(check.position_matches_walk)
    ));
    for kernel in [Kernel::Scatter, Kernel::Gather] {
        for order in [BlockOrder::Forward, BlockOrder::Shuffled(6)] {
            let (line, _) = kernel_case_line(kernel, rows, cols, block, &order)?;
            let label = if order == BlockOrder::Forward { "forward" } else { "shuffled" };
            out.line(format!(
                "  {} ({label} blocks):{}",
                kernel.name(),
                line.trim_start().split_once(':').map_or("", |x| x.1)
            ));
        }
    }
    if rows <= 16 && cols <= 16 {
        out.line("  rank of every position:");
        out.line(rank_grid(rows, cols).trim_end());
    }
    Ok(out.into_string())
}

/// Every output the K.6 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![("k6_spiral.txt", worked_example()), ("k6_spiral-beyond.txt", beyond_the_source())]
}

#[cfg(test)]
mod tests;
