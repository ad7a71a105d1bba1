//! Appendix K.6: spiral order. A traversal that looks strictly sequential
//! still has an O(1) closed form, so every CUDA thread can compute its own
//! place in it.
//!
//! The file reads top to bottom like the CUDA study it mirrors:
//!
//! 1. the CPU reference: [`spiral_order`], the plain ring-peeling walk
//!    everyone already trusts, and the closed forms checked against it,
//!    [`spiral_rank`] `(row, col) -> rank` and its inverse
//!    [`spiral_position`] `rank -> (row, col)`;
//! 2. the kernel twins, one per `__global__` of `kernels/k6_spiral.cu`:
//!    [`spiral_scatter`] (one thread per input element, writes land wherever
//!    the rank says) and [`spiral_gather`] (one thread per output slot, reads
//!    come from wherever the inverse says);
//! 3. the launch plan both kernels share, driven by the grid simulator here
//!    and by the GPU runner in [`gpu`];
//! 4. the exploration: cross-checks, coalescing;
//! 5. the report.

pub mod exercises;
pub mod figures;
pub mod gpu;
pub mod values;

use anyhow::{Context, Result};
use ktrav::{launch, BlockOrder, Dim2, GeometryError, LaunchConfig, Shape, Thread};
use ktrav_term::report::{self, Report};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

// --- 1. CPU reference --------------------------------------------------------

// ANCHOR: sequential
/// The reference order, kept simple on purpose: `top`, `bottom`, `left` and
/// `right` close in by one after each side is walked. Where the walk goes
/// next depends on where it has been, so as written it runs on one thread;
/// the closed forms below remove that dependence.
pub fn spiral_order(shape: Shape) -> Vec<(u64, u64)> {
    let mut order = Vec::with_capacity(shape.elements() as usize);
    if shape.is_empty() {
        return order;
    }
    // Signed bounds: `bottom` and `right` may step past `top` and `left`.
    let (mut top, mut bottom, mut left, mut right) = (0i64, shape.rows as i64 - 1, 0i64, shape.cols as i64 - 1);
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

/// The reference the kernels must reproduce, built from the sequential walk
/// alone: `reference[rank]` is the element the walk visits `rank`-th.
pub fn reference<T: Copy>(input: &[T], shape: Shape) -> Vec<T> {
    spiral_order(shape).into_iter().map(|(r, c)| input[(r * shape.cols + c) as usize]).collect()
}
// ANCHOR_END: sequential

// The closed forms: each is a `__device__` function of the .cu as well,
// taking `rows, cols` as it does.

// ANCHOR: ring
/// The ring a position lies on: its distance to the nearest edge.
pub fn ring_of(row: u64, col: u64, rows: u64, cols: u64) -> u64 {
    row.min(col).min(rows - 1 - row).min(cols - 1 - col)
}

/// The first rank on ring `k`: the number of cells on rings 0 to `k - 1`,
/// which is the `rows x cols` matrix less its `(rows-2k) x (cols-2k)` core.
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
    // A ring that is a lone row is all top side; a lone column is its top
    // cell, then right side. Testing the sides in walk order handles both.
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
/// The ring that holds `rank`: among the matrix's rings (`k <= last_ring`),
/// the largest `k` with `ring_start(k) <= rank`.
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
        (top + offset - (width - 1), right) // right side (a lone column below its top cell)
    } else if offset < 2 * width + height - 2 {
        (bottom, right - (offset - (width - 1) - (height - 1))) // bottom side
    } else {
        (bottom - (offset - 2 * (width - 1) - (height - 1)), left) // left side
    }
}
// ANCHOR_END: inverse

// --- 2. Kernel twins ---------------------------------------------------------

// ANCHOR: kernels
/// Scatter's indices, one thread per INPUT element: read `in[row][col]`
/// (coalesced), write it to `out[rank]` (wherever the spiral puts it).
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

/// `__global__ spiral_scatter(out, in, rows, cols)`.
pub fn spiral_scatter<T: Copy>(t: Thread, out: &mut [T], input: &[T], rows: u64, cols: u64) {
    if let Some((from, to)) = scatter_indices(t, rows, cols) {
        out[to as usize] = input[from as usize];
    }
}

/// Gather's indices, one thread per OUTPUT slot: the output is laid out as
/// the same `rows x cols` grid, so thread `(row, col)` owns
/// `rank = row * cols + col` and writes it (coalesced) after reading from
/// wherever the inverse says.
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

/// `__global__ spiral_gather(out, in, rows, cols)`.
pub fn spiral_gather<T: Copy>(t: Thread, out: &mut [T], input: &[T], rows: u64, cols: u64) {
    if let Some((from, to)) = gather_indices(t, rows, cols) {
        out[to as usize] = input[from as usize];
    }
}
// ANCHOR_END: kernels

// --- 3. Launch plan ----------------------------------------------------------

/// Which of the two kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Scatter,
    Gather,
}

impl Kernel {
    /// Its name in `kernels/k6_spiral.cu`.
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Scatter => "spiral_scatter",
            Kernel::Gather => "spiral_gather",
        }
    }

    /// The (read, write) indices of thread `t`, as the kernel computes them.
    pub fn indices(self, t: Thread, rows: u64, cols: u64) -> Option<(u64, u64)> {
        match self {
            Kernel::Scatter => scatter_indices(t, rows, cols),
            Kernel::Gather => gather_indices(t, rows, cols),
        }
    }
}

// ANCHOR: simulate
/// The launch of either kernel over a `shape` matrix: one thread per element,
/// `x` along columns, in one pass (the kernels have no grid-stride loop).
/// The simulator and the GPU code both launch exactly this.
pub fn plan(shape: Shape, block: Dim2) -> Result<LaunchConfig, GeometryError> {
    LaunchConfig::covering(shape, block)
}

/// One launch of `kernel` over a row-major `shape` input, blocks run in
/// `order`. The output is the input rearranged into spiral order.
pub fn simulate<T: Copy + Default>(
    kernel: Kernel,
    input: &[T],
    shape: Shape,
    block: Dim2,
    order: &BlockOrder,
) -> Result<Vec<T>, GeometryError> {
    let cfg = plan(shape, block)?;
    let (rows, cols) = (shape.rows, shape.cols);
    let mut out = vec![T::default(); input.len()];
    launch(&cfg, order, |t| match kernel {
        Kernel::Scatter => spiral_scatter(t, &mut out, input, rows, cols),
        Kernel::Gather => spiral_gather(t, &mut out, input, rows, cols),
    });
    Ok(out)
}
// ANCHOR_END: simulate

// --- 4. Exploration ----------------------------------------------------------

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
pub fn cross_check(shape: Shape) -> ShapeCheck {
    let (rows, cols) = (shape.rows, shape.cols);
    let walk = spiral_order(shape);
    let n = shape.elements();
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

/// Average number of distinct 32-byte sectors one warp requests when it
/// reads, and when it writes, 4-byte elements: 4.00 is the least a warp's
/// 32 floats can take (128 contiguous bytes), 32.00 means every thread of
/// the warp hits its own sector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coalescing {
    pub warps: u64,
    pub read_sectors: f64,
    pub write_sectors: f64,
}

/// The memory system's unit of request, in bytes, as K.3 and Nsight Compute
/// count it.
pub const SECTOR_BYTES: u64 = 32;

/// Runs `kernel`'s index computation through the simulator, with the
/// kernel's own launch plan, and counts the sectors each warp's load and
/// store instructions request.
pub fn coalescing(kernel: Kernel, shape: Shape, block: Dim2) -> Result<Coalescing, GeometryError> {
    const ELEM_BYTES: u64 = 4;
    let cfg = plan(shape, block)?;
    // (block, warp) -> the sectors its loads and its stores request.
    let mut reads: BTreeMap<(u64, u32), HashSet<u64>> = Default::default();
    let mut writes: BTreeMap<(u64, u32), HashSet<u64>> = Default::default();
    launch(&cfg, &BlockOrder::Forward, |t| {
        if let Some((from, to)) = kernel.indices(t, shape.rows, shape.cols) {
            let warp = (t.linear_block(), t.linear_in_block() / 32);
            reads.entry(warp).or_default().insert(from * ELEM_BYTES / SECTOR_BYTES);
            writes.entry(warp).or_default().insert(to * ELEM_BYTES / SECTOR_BYTES);
        }
    });
    let warps = reads.len() as u64;
    let avg =
        |m: &BTreeMap<(u64, u32), HashSet<u64>>| m.values().map(|s| s.len() as u64).sum::<u64>() as f64 / warps as f64;
    Ok(Coalescing { warps, read_sectors: avg(&reads), write_sectors: avg(&writes) })
}

/// The rank of every position, drawn as the matrix itself.
pub fn rank_grid(shape: Shape) -> String {
    let (rows, cols) = (shape.rows, shape.cols);
    let width = (shape.elements() - 1).to_string().len().max(2);
    let mut out = String::new();
    for r in 0..rows {
        out.push(' ');
        for c in 0..cols {
            write!(out, " {:>width$}", spiral_rank(r, c, rows, cols)).expect("writing to a String cannot fail");
        }
        out.push('\n');
    }
    out
}

/// The source's ten shapes for the exhaustive cross-check.
pub const SOURCE_SHAPES: [Shape; 10] = [
    Shape::new(1, 1),
    Shape::new(1, 5),
    Shape::new(5, 1),
    Shape::new(3, 3),
    Shape::new(4, 4),
    Shape::new(4, 5),
    Shape::new(5, 4),
    Shape::new(7, 7),
    Shape::new(6, 9),
    Shape::new(9, 6),
];

/// Shapes whose innermost ring has collapsed to a lone row or column inside
/// an outer ring. Of the source's shapes only its 7x5 kernel case has one (a
/// lone column); its ten cross-check shapes have none.
pub const COLLAPSED_RING_SHAPES: [Shape; 4] = [Shape::new(3, 5), Shape::new(5, 3), Shape::new(3, 7), Shape::new(7, 3)];

/// The innermost ring of a spiral: its number and the shape of the core it
/// walks.
pub fn innermost_ring(shape: Shape) -> (u64, Shape) {
    let k = (shape.rows.min(shape.cols) - 1) / 2;
    (k, Shape::new(shape.rows - 2 * k, shape.cols - 2 * k))
}

/// The source's four kernel cases, all with 4x4 blocks.
pub const SOURCE_KERNEL_CASES: [Shape; 4] = [Shape::new(4, 4), Shape::new(7, 5), Shape::new(9, 6), Shape::new(6, 9)];
pub const SOURCE_BLOCK: Dim2 = Dim2::new(4, 4);

/// One kernel case run in the simulator: its launch's blocks and idle
/// threads, and whether the output matches the walk's reference.
struct KernelCase {
    blocks: u64,
    idle: u64,
    ok: bool,
}

fn kernel_case(kernel: Kernel, shape: Shape, block: Dim2, order: &BlockOrder) -> Result<KernelCase> {
    let input: Vec<u32> = (0..shape.elements() as u32).collect();
    let out = simulate(kernel, &input, shape, block, order)
        .with_context(|| format!("{} over a {shape} matrix with {block} blocks", kernel.name()))?;
    let cfg = plan(shape, block)?;
    Ok(KernelCase { blocks: cfg.blocks(), idle: cfg.waste(shape).total, ok: out == reference(&input, shape) })
}

/// One kernel case as a line: launch shape and whether the output matches the reference.
fn kernel_case_line(kernel: Kernel, shape: Shape, block: Dim2, order: &BlockOrder) -> Result<(String, bool)> {
    let KernelCase { blocks, idle, ok } = kernel_case(kernel, shape, block, order)?;
    let plural = if blocks == 1 { "" } else { "s" };
    Ok((
        format!(
            "  {shape}, block={block} ({blocks} block{plural}, {idle} idle threads): output equals the walk's reference: {}",
            report::verdict(ok)
        ),
        ok,
    ))
}

/// The 3x3 walk, as the cells' 1-based row-major numbers.
pub fn sequence_3x3() -> String {
    report::join(spiral_order(Shape::new(3, 3)).iter().map(|&(r, c)| r * 3 + c + 1), " ")
}

/// `kernel` on every one of [`SOURCE_KERNEL_CASES`] with blocks in
/// `order`, as table rows (shape, block, blocks, idle threads, same as the
/// walk's reference), each with whether its output is right.
fn kernel_cases(kernel: Kernel, order: &BlockOrder) -> Vec<(Vec<String>, bool)> {
    SOURCE_KERNEL_CASES
        .iter()
        .map(|&shape| {
            let case = kernel_case(kernel, shape, SOURCE_BLOCK, order).expect("the source's launch shapes are valid");
            let row = vec![
                shape.to_string(),
                SOURCE_BLOCK.to_string(),
                case.blocks.to_string(),
                case.idle.to_string(),
                report::verdict(case.ok),
            ];
            (row, case.ok)
        })
        .collect()
}

/// The kernel cases' table, with its header.
fn kernel_case_table(out: &mut Report, cases: &[(Vec<String>, bool)]) {
    let mut rows = vec![["shape", "block", "blocks", "idle threads", "same as the walk"].map(String::from).to_vec()];
    rows.extend(cases.iter().map(|(row, _)| row.clone()));
    out.table(&rows);
}

// --- 5. Report ---------------------------------------------------------------

/// The worked example: every figure of the source's K.6 output.
pub fn worked_example() -> String {
    let mut out = Report::new();
    out.heading("K.6: the rank formula against the walk, cell by cell");
    out.blank();
    out.line("The walk of a 3x3 matrix holding 1..9:");
    let walked = sequence_3x3();
    out.line(format!("  walked:   {walked}"));
    out.line("  expected: 1 2 3 6 9 8 7 4 5");
    out.line(format!("  same: {}", report::verdict(walked == "1 2 3 6 9 8 7 4 5")));
    out.blank();

    let source: Vec<(Shape, ShapeCheck)> = SOURCE_SHAPES.iter().map(|&shape| (shape, cross_check(shape))).collect();
    let collapsed: Vec<(Shape, ShapeCheck)> =
        COLLAPSED_RING_SHAPES.iter().map(|&shape| (shape, cross_check(shape))).collect();
    out.line("spiral_rank beside the walk's rank at every cell (innermost ring: where it collapses to a lone row");
    out.line("or column inside an outer ring):");
    let mut rows = vec![["shape", "cells", "innermost ring", "every rank the walk's"].map(String::from).to_vec()];
    for (shape, check) in source.iter().chain(&collapsed) {
        let ring = if COLLAPSED_RING_SHAPES.contains(shape) {
            let (k, core) = innermost_ring(*shape);
            let kind = if core.rows == 1 { "row" } else { "column" };
            format!("ring {k}, a lone {core} {kind}")
        } else {
            "-".to_string()
        };
        rows.push(vec![shape.to_string(), check.positions.to_string(), ring, report::verdict(check.rank_matches_walk)]);
    }
    out.table(&rows);
    out.line(format!(
        "shapes where a rank differs: {} of {}",
        source.iter().chain(&collapsed).filter(|(_, check)| !check.rank_matches_walk).count(),
        SOURCE_SHAPES.len() + COLLAPSED_RING_SHAPES.len()
    ));
    out.blank();

    out.heading("spiral_scatter in the grid simulator, on divisible and ragged shapes");
    let cases = kernel_cases(Kernel::Scatter, &BlockOrder::Forward);
    kernel_case_table(&mut out, &cases);
    out.line(format!(
        "cases whose output differs: {} of {}",
        cases.iter().filter(|(_, ok)| !ok).count(),
        SOURCE_KERNEL_CASES.len()
    ));
    out.into_string()
}

/// Beyond the source: the inverse closed form, the gather kernel, an
/// exhaustive check up to 64x64, and which side of each copy coalesces.
/// The largest side of the shapes the inverse is checked on exhaustively.
pub const EXHAUSTIVE_SIDE: u64 = 64;

/// Both closed forms against the walk on every shape from 1x1 to
/// `side`x`side`: (shapes, positions, whether all agree).
pub fn every_shape_up_to(side: u64) -> (u64, u64, bool) {
    let checks: Vec<ShapeCheck> =
        (1..=side).flat_map(|rows| (1..=side).map(move |cols| cross_check(Shape::new(rows, cols)))).collect();
    let positions = checks.iter().map(|check| check.positions).sum();
    (checks.len() as u64, positions, checks.iter().all(ShapeCheck::ok))
}

pub fn beyond_the_source() -> String {
    let mut out = Report::new();
    out.heading("The inverse closed form: rank -> (row, col)");
    out.blank();
    out.line("Spiral rank of every position of a 4x5 matrix:");
    out.line(rank_grid(Shape::new(4, 5)).trim_end());
    out.blank();
    let shapes_checked = SOURCE_SHAPES.iter().chain(COLLAPSED_RING_SHAPES.iter());
    let inverse_ok = shapes_checked.clone().all(|&shape| cross_check(shape).position_matches_walk);
    out.line(format!(
        "position(rank) returns the walked position at every rank of the {} shapes above: {}",
        shapes_checked.count(),
        report::verdict(inverse_ok)
    ));
    let (shapes, positions, all_agree) = every_shape_up_to(EXHAUSTIVE_SIDE);
    out.line(format!(
        "every shape from 1x1 to {EXHAUSTIVE_SIDE}x{EXHAUSTIVE_SIDE} ({shapes} shapes, {positions} positions): both forms agree with the walk: {}",
        report::verdict(all_agree)
    ));
    out.blank();

    out.heading("spiral_gather through the grid simulator, the same four cases");
    let cases = kernel_cases(Kernel::Gather, &BlockOrder::Reverse);
    out.line("blocks run in reverse:");
    kernel_case_table(&mut out, &cases);
    out.line(format!(
        "cases whose output differs: {} of {}",
        cases.iter().filter(|(_, ok)| !ok).count(),
        SOURCE_KERNEL_CASES.len()
    ));
    out.blank();

    out.heading("Which side of the copy coalesces");
    let (shape, block) = (Shape::new(64, 64), Dim2::new(32, 8));
    out.line(format!(
        "{shape} floats, {block} blocks: 32-byte sectors requested per warp instruction (4 is the least, 32 the most):"
    ));
    for kernel in [Kernel::Scatter, Kernel::Gather] {
        let c = coalescing(kernel, shape, block).expect("a valid launch");
        out.line(format!(
            "  {:<14}  loads {:>5.2}   stores {:>5.2}   ({} warps)",
            kernel.name(),
            c.read_sectors,
            c.write_sectors,
            c.warps
        ));
    }
    out.into_string()
}

/// The work of [`shape_report`] on `shape` with `block`, in simulated steps:
/// the walk and both closed forms (two per element), then four kernel runs
/// (every launched thread, and the input and reference built for it: one per
/// element). Known before any of it starts, so a run too large is refused and
/// a long one gets a progress bar. Saturates rather than overflowing.
pub fn shape_report_work(shape: Shape, block: Dim2) -> Result<u64> {
    let cfg = plan(shape, block).with_context(|| format!("a {shape} matrix with {block} blocks"))?;
    let per_case = cfg.total_threads().saturating_add(shape.elements());
    Ok(shape.elements().saturating_mul(2).saturating_add(per_case.saturating_mul(4)))
}

/// The report for any shape and block: both closed forms and both kernels.
/// `progress` is told the work done (in the units of [`shape_report_work`])
/// after each part.
pub fn shape_report(shape: Shape, block: Dim2, progress: &mut dyn FnMut(u64)) -> Result<String> {
    let cfg = plan(shape, block).with_context(|| format!("a {shape} matrix with {block} blocks"))?;
    let mut out = Report::new();
    out.line(format!(
        "{shape} matrix, {block} blocks, grid {} ({} threads for {} elements)",
        cfg.grid,
        cfg.total_threads(),
        shape.elements()
    ));
    let check = cross_check(shape);
    progress(2 * shape.elements());
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
            let (line, _) = kernel_case_line(kernel, shape, block, &order)?;
            progress(cfg.total_threads() + shape.elements());
            let label = if order == BlockOrder::Forward { "forward" } else { "shuffled" };
            out.line(format!(
                "  {} ({label} blocks):{}",
                kernel.name(),
                line.trim_start().split_once(':').map_or("", |x| x.1)
            ));
        }
    }
    if shape.rows <= 16 && shape.cols <= 16 {
        out.line("  rank of every position:");
        out.line(rank_grid(shape).trim_end());
    }
    Ok(out.into_string())
}

/// What the binary prints by default before its GPU section.
pub fn report() -> Vec<String> {
    vec![worked_example(), beyond_the_source()]
}

/// Every output the K.6 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k6_spiral.txt", worked_example()),
        ("k6_spiral-beyond.txt", beyond_the_source()),
        ("k6_spiral-exercise.txt", exercises::shown()),
        ("k6_spiral-find-the-bug.txt", exercises::find_the_bug_shown()),
        ("k6_spiral-versions.txt", CHAPTER.ladder_text()),
    ]
}

pub const CHAPTER: ktrav::Chapter = ktrav::Chapter {
    id: "k6_spiral",
    section: "K.6",
    title: "Spiral order has a closed form",
    report,
    shown_outputs,
    figures: figures::figures,
    kernel_source: Some(include_str!("../../../kernels/k6_spiral.cu")),
    values: values::values,
    gpu: Some(&gpu::ENTRY),
    exercises: exercises::EXERCISES,
    sim_exercises: exercises::SIM_EXERCISES,
    versions: &VERSIONS,
};

#[cfg(test)]
mod tests;

// --- How fast can it go -------------------------------------------------------

/// The faster spiral reorders of `kernels/k6_spiral.cu`, in order. Each
/// takes `(out, in, rows, cols)` with 64-bit rows and cols (the teaching
/// kernels take `int`), writes `out[spiral_rank(r, c)] = in[r * cols + c]`
/// with reads and writes coalesced, and walks its tile column in steps of
/// `gridDim.y`, so any shape launches.
pub const VERSIONS: [ktrav::ladder::Version; 4] = [
    ktrav::ladder::Version {
        kernel: "spiral_v1_tiled",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 8)),
        static_shared: 32 * 33 * 4,
        plan: spiral_v1_plan,
    },
    ktrav::ladder::Version {
        kernel: "spiral_v2_tile_classes",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 8)),
        static_shared: 32 * 33 * 4,
        plan: spiral_v2_plan,
    },
    ktrav::ladder::Version {
        kernel: "spiral_v3_tile64",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 8)),
        static_shared: 64 * 65 * 4,
        plan: spiral_v3_plan,
    },
    ktrav::ladder::Version {
        kernel: "spiral_v4_mixed_bases",
        block: ktrav::ladder::BlockRule::Exactly(Dim2::new(32, 8)),
        // The tile, and four tables of 64 rank bases (i64).
        static_shared: 64 * 65 * 4 + 4 * 64 * 8,
        plan: spiral_v4_plan,
    },
];

/// v1: 32 x 8 blocks over 32 x 32 tiles.
pub fn spiral_v1_plan(shape: Shape, _sms: u32) -> Result<ktrav::ladder::Plan, GeometryError> {
    ktrav::ladder::tiles_strided(shape, 32, Dim2::new(32, 8)).map(ktrav::ladder::plain)
}

/// v2: as v1.
pub fn spiral_v2_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, GeometryError> {
    spiral_v1_plan(shape, sms)
}

/// v3: 32 x 8 blocks over 64 x 64 tiles.
pub fn spiral_v3_plan(shape: Shape, _sms: u32) -> Result<ktrav::ladder::Plan, GeometryError> {
    ktrav::ladder::tiles_strided(shape, 64, Dim2::new(32, 8)).map(ktrav::ladder::plain)
}

/// v4: as v3.
pub fn spiral_v4_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, GeometryError> {
    spiral_v3_plan(shape, sms)
}
