//! K.4 on a real GPU: the two fills and the row-only addition of
//! `kernels/k4_boundary_check.cu` (the fourth kernel, `add_checked`, runs in
//! the small-shape mode and in the lab's checks) launched many times each into a buffer with real padding rows after the
//! matrix, so that the one-axis kernels' stray stores land in memory that
//! was allocated for them and are counted, never out of bounds.
//!
//! The two kernels whose result the chapter says is fixed (the fully guarded
//! fill, and the row-only addition whose strays store the right value) are
//! checked cell for cell on every run. The row-only fill races: its result is
//! checked for what every order must leave (row 0 right, the padding count
//! fixed, every cell holding a value some thread stored there), and how many
//! rows came out wrong is tallied beside the simulator's orders.

use crate::{
    add_a, add_b, explore_block_rows, explore_shuffles, launch_plan, marker, run_add, run_fill, Fill, LaunchPlan,
    Outcomes, LARGE_BLOCK, LARGE_SHAPE, LARGE_SHUFFLES, SENTINEL, SOURCE_BLOCK, SOURCE_SHAPE,
};
use anyhow::{Context, Result};
use ktrav::chapter::NotOnTheLadder;
use ktrav::compare::{compare, compare_with, Agreement, POISON_WORD};
use ktrav::{BlockOrder, Dim2, Shape};
use ktrav_gpu::section::{small_shapes, Role};
use ktrav_gpu::{DeviceBuffer, Gpu, GpuSection, Kernel, PushKernelArg};
use ktrav_term::report::{median, pct_places};
use std::collections::BTreeMap;

const FILE: &str = "k4_boundary_check";

/// What the simulator explored for a case, to set beside the GPU's runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulated {
    /// Every order of the block rows (the chapter's small case).
    BlockRows,
    /// This many seeded shuffles of all blocks, seeds from 0 (the chapter's larger case).
    Shuffles(u64),
    /// Too large to simulate many orders: closed-form references only.
    No,
}

/// One launch shape and how many times each kernel runs on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    pub shape: Shape,
    pub block: Dim2,
    pub runs: usize,
    pub simulated: Simulated,
}

/// The source's 4x10 case, the chapter's 24x100 case, and a launch of
/// 32 768 blocks where many more blocks are in flight at once. 8192 x 999
/// keeps every marker `row * 1000 + col` below 2^24, so exact as an `f32`,
/// and unique per cell (999 columns).
pub const CASES: [Case; 3] = [
    Case { shape: SOURCE_SHAPE, block: SOURCE_BLOCK, runs: 2000, simulated: Simulated::BlockRows },
    Case { shape: LARGE_SHAPE, block: LARGE_BLOCK, runs: 1000, simulated: Simulated::Shuffles(LARGE_SHUFFLES) },
    Case { shape: Shape::new(8192, 999), block: Dim2::new(32, 8), runs: 100, simulated: Simulated::No },
];

/// What the device buffer holds before every launch: poison over the matrix
/// (a cell no thread stored to shows as unwritten), the sentinel over the
/// padding (a padding cell that changed was hit by a stray).
fn initial_buffer(plan: &LaunchPlan) -> Vec<f32> {
    let poison = f32::from_bits(POISON_WORD);
    let cells = plan.shape.elements();
    (0..plan.buffer_len()).map(|i| if i < cells { poison } else { SENTINEL }).collect()
}

/// Resets `out` to `init` and launches `f` from the plan on it, with
/// `inputs` before the shape (the addition's `a` and `b`); returns the whole
/// buffer, padding included, and the kernel time.
fn launch(
    gpu: &Gpu,
    plan: &LaunchPlan,
    init: &[f32],
    f: &Kernel,
    out: &mut DeviceBuffer<f32>,
    inputs: &[&DeviceBuffer<f32>],
) -> Result<(Vec<f32>, f32)> {
    gpu.write(init, out).context("resetting the buffer failed")?;
    let (rows, cols) = (plan.shape.rows, plan.shape.cols);
    let mut args = gpu.args(f);
    args.arg(&mut *out);
    for input in inputs {
        args.arg(*input);
    }
    args.arg(&rows).arg(&cols);
    let ms = gpu.launch(args, &plan.cfg, 0)?;
    Ok((gpu.download(out)?, ms))
}

/// What one run of `fill_row_only_checked` left behind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowOnlyRun {
    /// Rows with at least one cell not holding its own marker.
    pub wrong_rows: u64,
    /// Row 0 is never a stray's target, so it is right in every order.
    pub row0_right: bool,
    /// Cells holding a value that no thread of the launch stores there
    /// (unwritten cells included): impossible in any order.
    pub impossible: u64,
    /// Padding cells that no longer hold the sentinel.
    pub padding_overwritten: u64,
}

impl RowOnlyRun {
    /// Whether some order of the stores could leave this run: row 0 right,
    /// no impossible cell, and exactly the last row's `overflow` strays in
    /// the padding.
    pub fn possible(&self, overflow: u64) -> bool {
        self.row0_right && self.impossible == 0 && self.padding_overwritten == overflow
    }
}

/// The global `(row, col)` of every thread of `fill_row_only_checked` that
/// stores to flat index `i`: the owner (if `i` is a matrix cell) and the
/// strays from the rows above whose `col` runs past the edge.
pub fn writers(i: u64, shape: Shape, threads_x: u64) -> impl Iterator<Item = (u64, u64)> {
    let cols = shape.cols;
    let top = (i / cols).min(shape.rows - 1);
    (0..=top).rev().map(move |r| (r, i - r * cols)).take_while(move |&(_, c)| c < threads_x)
}

/// Reads one run of the row-only fill: which rows are wrong, and whether
/// every cell holds something an order of the stores could have left.
pub fn classify_row_only(buf: &[f32], shape: Shape, threads_x: u64) -> RowOnlyRun {
    let (rows, cols) = (shape.rows, shape.cols);
    let mut run = RowOnlyRun { row0_right: true, ..RowOnlyRun::default() };
    for r in 0..rows {
        let mut row_wrong = false;
        for c in 0..cols {
            let i = r * cols + c;
            let v = buf[i as usize];
            if v == marker(r, c) {
                continue;
            }
            row_wrong = true;
            if !writers(i, shape, threads_x).any(|(wr, wc)| marker(wr, wc).to_bits() == v.to_bits()) {
                run.impossible += 1;
            }
        }
        run.wrong_rows += row_wrong as u64;
        if r == 0 {
            run.row0_right = !row_wrong;
        }
    }
    for (j, &v) in buf[(rows * cols) as usize..].iter().enumerate() {
        if v.to_bits() == SENTINEL.to_bits() {
            continue;
        }
        run.padding_overwritten += 1;
        let i = rows * cols + j as u64;
        if !writers(i, shape, threads_x).any(|(wr, wc)| marker(wr, wc).to_bits() == v.to_bits()) {
            run.impossible += 1;
        }
    }
    run
}

/// Tallies `count` under `key`.
fn tally(map: &mut BTreeMap<u64, u64>, key: u64) {
    *map.entry(key).or_insert(0) += 1;
}

/// The simulator's distribution of wrong rows for a case, and what it was
/// taken over.
fn simulated<K: Clone>(o: &Outcomes<K>) -> BTreeMap<u64, u64> {
    o.by_wrong_rows.iter().map(|(&wrong, &(count, _))| (wrong, count)).collect()
}

/// Launches `runs` times and compares each result with the simulator's
/// output when there is one, else with `reference` (a closed form per
/// index). Returns how many runs were exact, the first bad comparison, and
/// the kernel times.
fn repeat_and_compare(
    runs: usize,
    sim: Option<&[f32]>,
    reference: impl Fn(usize) -> f32 + Sync,
    mut launch: impl FnMut() -> Result<(Vec<f32>, f32)>,
) -> Result<(usize, Option<Agreement>, Vec<f32>)> {
    let (mut exact, mut first_bad, mut times) = (0, None, Vec::with_capacity(runs));
    for _ in 0..runs {
        let (buf, ms) = launch()?;
        times.push(ms);
        let a = match sim {
            Some(sim) => compare(&buf, sim),
            None => compare_with(&buf, &reference),
        };
        if a.ok() {
            exact += 1;
        } else {
            first_bad.get_or_insert(a);
        }
    }
    Ok((exact, first_bad, times))
}

/// The chapter's GPU entry points, held by its [`ktrav::Chapter`]: the
/// whole section or the small-shape mode (`ktrav_gpu::section`), the
/// section at a reader's shape, and where the ladder times the exercises.
pub const ENTRY: ktrav_gpu::GpuEntry = ktrav_gpu::GpuEntry { checks, small, at_shape, ladder_shape };

/// Where the ladder times an exercise's solution (see
/// [`ktrav::GpuHooks::ladder_shape`]).
fn ladder_shape(_: &ktrav::Exercise) -> Result<Shape, NotOnTheLadder> {
    Err(NotOnTheLadder::NoLadder {
        section: crate::CHAPTER.section,
        why: "its section times the guarded kernels into padded buffers, not a table".into(),
    })
}

/// The block of the small-shape mode and of `--gpu` (K.3's 32x8).
pub const GPU_BLOCK: Dim2 = Dim2::new(32, 8);

/// The value a kernel must leave in matrix cell `(row, col)`.
type CellReference = fn(u64, u64) -> f32;

/// The four kernels: name, whether it reads `a` and `b`, what every matrix
/// cell must hold, and whether it is wrong on purpose.
const KERNELS: [(&str, bool, CellReference, bool); 4] = [
    ("fill_checked", false, marker, false),
    ("add_checked", true, sum_ab, false),
    ("fill_row_only_checked", false, marker, true),
    ("add_row_only_checked", true, sum_ab, true),
];

fn sum_ab(row: u64, col: u64) -> f32 {
    add_a(row, col) + add_b(row, col)
}

/// `len` cells of a buffer over `shape`: `f(row, col)` over the matrix, then
/// the sentinel over any padding after it.
fn padded_cells(shape: Shape, len: u64, f: CellReference) -> Vec<f32> {
    (0..len).map(|i| if i < shape.elements() { f(i / shape.cols, i % shape.cols) } else { SENTINEL }).collect()
}

/// The small-shape mode, in three parts, so that every kernel gets a
/// sanitizer's verdict and the one-axis kernels' strays are still shown for
/// what they are:
///
/// 1. the two guarded kernels on every small shape, on buffers of exactly
///    the matrix, checked cell by cell;
/// 2. the two one-axis kernels (wrong on purpose) on every small shape into
///    buffers with the chapter's padding rows, as in the whole section: their
///    strays land in allocated memory, so a memory checker has nothing to
///    say, and their wrong cells are shown;
/// 3. each one-axis kernel once more, on the first small shape with strays,
///    into a buffer of exactly the matrix: its strays pass the allocation's
///    end (they stay inside its 256-byte rounding, a test says so, so no other
///    buffer is touched). Without a checker the run is shown like part 2's;
///    under memcheck the strays are reported and the launch ends in an
///    error, so the run is shown as aborted, and since the context is lost,
///    the runs after it are shown as skipped.
pub fn small(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    // Part 1 (guarded) and part 2 (one-axis, padded), shape by shape.
    for shape in small_shapes() {
        for padded in [false, true] {
            let plan = if padded {
                launch_plan(shape, GPU_BLOCK)?
            } else {
                LaunchPlan { padding_rows: 0, ..launch_plan(shape, GPU_BLOCK)? }
            };
            let (len, n) = (plan.buffer_len(), shape.elements());
            let init = initial_buffer(&plan);
            let (a, b) = (gpu.upload(&padded_cells(shape, len, add_a))?, gpu.upload(&padded_cells(shape, len, add_b))?);
            let mut out = gpu.poisoned::<f32>(len as usize)?;
            for (name, reads, reference, wrong) in KERNELS.into_iter().filter(|k| k.3 == padded) {
                let f = gpu.function(FILE, name)?;
                let inputs: &[&DeviceBuffer<f32>] = if reads { &[&a, &b] } else { &[] };
                let (buf, _) = launch(gpu, &plan, &init, &f, &mut out, inputs)?;
                let agreement =
                    compare_with(&buf[..n as usize], |i| reference(i as u64 / shape.cols, i as u64 % shape.cols));
                if wrong {
                    sec.run_shown(name, shape, &plan.cfg, (agreement.unwritten + agreement.mismatched) as u64, n);
                } else {
                    sec.run(name, Role::Teaching, shape, &plan.cfg, &agreement);
                }
            }
        }
    }
    // Part 3: the strays past the end of an unpadded buffer.
    let shape = small_shapes()
        .into_iter()
        .find(|&s| launch_plan(s, GPU_BLOCK).is_ok_and(|p| p.overflow() > 0))
        .context("no small shape has strays")?;
    let plan = LaunchPlan { padding_rows: 0, ..launch_plan(shape, GPU_BLOCK)? };
    let n = shape.elements();
    let init = vec![f32::from_bits(POISON_WORD); n as usize];
    let (a, b) = (gpu.upload(&padded_cells(shape, n, add_a))?, gpu.upload(&padded_cells(shape, n, add_b))?);
    let mut out = gpu.poisoned::<f32>(n as usize)?;
    // The strays stay inside each buffer's 256-byte rounding only if the
    // buffer starts on a 256-byte boundary, as CUDA's allocations do.
    for address in [gpu.address(&out), gpu.address(&a), gpu.address(&b)] {
        anyhow::ensure!(address.is_multiple_of(256), "a device buffer at {address:#x} is not 256-byte aligned");
    }
    sec.line(format!(
        "one-axis kernels once more on {shape}, into buffers of exactly the matrix (strays past the end):"
    ));
    let mut lost = false;
    for (name, reads, reference, _) in KERNELS.into_iter().filter(|k| k.3) {
        if lost {
            sec.run_skipped(name, shape, &plan.cfg);
            continue;
        }
        let f = gpu.function(FILE, name)?;
        let inputs: &[&DeviceBuffer<f32>] = if reads { &[&a, &b] } else { &[] };
        match launch(gpu, &plan, &init, &f, &mut out, inputs) {
            Ok((buf, _)) => {
                let agreement = compare_with(&buf, |i| reference(i as u64 / shape.cols, i as u64 % shape.cols));
                sec.run_shown(name, shape, &plan.cfg, (agreement.unwritten + agreement.mismatched) as u64, n);
            }
            Err(e) => {
                sec.run_aborted(name, shape, &plan.cfg, &format!("{e:#}"));
                sec.line("the launch ended in an error, so the context is lost: nothing more runs on the GPU");
                lost = true;
            }
        }
    }
    Ok(())
}

/// Device memory [`at_shape`] takes: the padded output and both padded
/// inputs, and the two buffers of the copy it is timed beside.
pub fn device_bytes(shape: Shape) -> Option<u64> {
    let plan = launch_plan(shape, GPU_BLOCK).ok()?;
    plan.buffer_len().checked_mul(3 * 4)?.checked_add(shape.checked_elements()?.checked_mul(2 * 4)?)
}

/// The section at a reader's shape (`--gpu`), with [`GPU_BLOCK`] blocks:
/// the two guarded kernels checked cell by cell, the two one-axis ones
/// (wrong on purpose, into allocated padding as in the whole section)
/// shown, then all four timed beside a device copy.
/// `Err` when its buffers do not fit in the free device memory.
pub fn at_shape(shape: Shape) -> Result<ktrav::SectionOutcome, ktrav_gpu::section::TooLarge> {
    ktrav_gpu::section::section_at(
        &crate::CHAPTER,
        shape,
        |_| device_bytes(shape),
        |gpu, sec| {
            let plan = launch_plan(shape, GPU_BLOCK)
                .with_context(|| format!("no launch of {GPU_BLOCK} blocks covers {shape}"))?;
            let init = initial_buffer(&plan);
            let (len, cells) = (plan.buffer_len(), shape.elements());
            let (a, b) = (gpu.upload(&padded_cells(shape, len, add_a))?, gpu.upload(&padded_cells(shape, len, add_b))?);
            let mut out = gpu.poisoned::<f32>(len as usize)?;
            let mut functions = Vec::new();
            for (name, reads, reference, wrong) in KERNELS {
                let f = gpu.function(FILE, name)?;
                let inputs: &[&DeviceBuffer<f32>] = if reads { &[&a, &b] } else { &[] };
                let (buf, ms) = launch(gpu, &plan, &init, &f, &mut out, inputs)?;
                let agreement =
                    compare_with(&buf[..cells as usize], |i| reference(i as u64 / shape.cols, i as u64 % shape.cols));
                let label = format!("  {shape} {name}, {GPU_BLOCK} blocks, grid {}", plan.cfg.grid);
                if wrong {
                    let bad = agreement.unwritten + agreement.mismatched;
                    sec.line(format!("{label} (wrong on purpose): {bad} of {cells} cells wrong (shown, not judged)"));
                } else {
                    sec.check(&label, &agreement, Some(ms));
                }
                functions.push((name, reads, f));
            }
            let table = sec.bandwidth(gpu, &format!("{shape} floats, {GPU_BLOCK} blocks"), cells as usize * 4, 20)?;
            for (name, reads, f) in &functions {
                let inputs: &[&DeviceBuffer<f32>] = if *reads { &[&a, &b] } else { &[] };
                let bytes = cells * 4 * (1 + 2 * *reads as u64);
                table.row(sec, name, bytes, || {
                    let (rows, cols) = (shape.rows, shape.cols);
                    let mut args = gpu.args(f);
                    args.arg(&mut out);
                    for input in inputs {
                        args.arg(*input);
                    }
                    args.arg(&rows).arg(&cols);
                    gpu.launch(args, &plan.cfg, 0)
                })?;
            }
            Ok(())
        },
    )
}

/// The three kernels the section launches many times on every case.
struct CaseKernels {
    fill_checked: Kernel,
    fill_row_only: Kernel,
    add_row_only: Kernel,
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    let kernels = CaseKernels {
        fill_checked: gpu.function(FILE, "fill_checked")?,
        fill_row_only: gpu.function(FILE, "fill_row_only_checked")?,
        add_row_only: gpu.function(FILE, "add_row_only_checked")?,
    };
    sec.line("each kernel launched many times into the matrix plus allocated padding rows; before every launch");
    sec.line(format!("the matrix is poisoned and the padding refilled with the sentinel {SENTINEL}:"));
    for case in CASES {
        check_case(gpu, sec, &kernels, &case)?;
    }
    Ok(())
}

/// One case: each kernel launched `case.runs` times, its runs judged and
/// shown, then the row-only fill's distribution of wrong rows.
fn check_case(gpu: &Gpu, sec: &mut GpuSection, kernels: &CaseKernels, case: &Case) -> Result<()> {
    let plan = launch_plan(case.shape, case.block)
        .with_context(|| format!("no launch of {} blocks covers {}", case.block, case.shape))?;
    let (shape, cfg, runs) = (plan.shape, plan.cfg, case.runs);
    let (rows, cols) = (shape.rows, shape.cols);
    let cells = shape.elements();
    let overflow = plan.overflow();
    let len = plan.buffer_len();
    // Every store of the one-axis kernels lands below rows*cols + overflow,
    // so inside the allocation: the padding is real memory.
    anyhow::ensure!(cells + overflow <= len, "the padding of {shape} is too small for its stray stores");
    let init = initial_buffer(&plan);
    sec.line(format!(
        "{rows}x{cols} matrix, {} blocks, grid {}: {overflow} stray column(s) per row, {} padding cells, {runs} runs of each kernel",
        cfg.block,
        cfg.grid,
        len - cells
    ));
    let out = gpu.poisoned::<f32>(len as usize)?;
    let mut launches = CaseLaunches { gpu, plan, init, out, runs, simulated: case.simulated != Simulated::No };

    let fill = launches.fill_checked(&kernels.fill_checked)?;
    let detail = match &fill.first_bad {
        None => format!("{} of {runs} runs equal {}, padding untouched", fill.exact, fill.against),
        Some(a) => format!("{} of {runs} runs exact; first bad run: {}", fill.exact, a.describe()),
    };
    sec.verdict("  fill_checked", &detail, fill.all_exact(), median(fill.times));

    let add = launches.add_row_only(&kernels.add_row_only)?;
    let detail = match &add.first_bad {
        None => format!(
            "{} of {runs} runs equal {}: every cell a+b, only the first {overflow} padding cells marked ({})",
            add.exact,
            add.against,
            SENTINEL + SENTINEL
        ),
        Some(bad) => format!("{} of {runs} runs as the chapter says; first bad run: {}", add.exact, bad.describe()),
    };
    sec.verdict("  add_row_only_checked", &detail, add.all_exact(), median(add.times));

    let row_only = launches.fill_row_only(&kernels.fill_row_only)?;
    let detail = match &row_only.first_unlawful {
        None => format!(
            "in all {runs} runs row 0 right, exactly {overflow} padding cells hit, every cell holding its own marker or a stray's"
        ),
        Some(r) => format!(
            "{} of {runs} runs possible under some order; first other: row 0 right {}, {} impossible cells, {} padding cells hit",
            row_only.lawful, r.row0_right, r.impossible, r.padding_overwritten
        ),
    };
    sec.verdict("  fill_row_only_checked", &detail, row_only.all_lawful(), median(row_only.times));
    distribution(sec, case, &plan, &row_only.wrong_rows);
    Ok(())
}

/// The launches of one case: every one starts from `init` in `out`.
struct CaseLaunches<'g> {
    gpu: &'g Gpu,
    plan: LaunchPlan,
    init: Vec<f32>,
    out: DeviceBuffer<f32>,
    /// Launches of each kernel.
    runs: usize,
    /// Whether the simulator gives the reference (else a closed form does).
    simulated: bool,
}

/// The runs of a kernel whose result is fixed, each compared cell for cell.
struct ExactRuns {
    runs: usize,
    /// Runs equal to the reference.
    exact: usize,
    first_bad: Option<Agreement>,
    times: Vec<f32>,
    /// What the runs were compared with.
    against: &'static str,
}

impl ExactRuns {
    fn all_exact(&self) -> bool {
        self.exact == self.runs
    }
}

/// The runs of the row-only fill: how many some order could leave, and the
/// distribution of wrong rows.
struct RowOnlyRuns {
    runs: usize,
    lawful: usize,
    first_unlawful: Option<RowOnlyRun>,
    times: Vec<f32>,
    /// Runs by the number of rows they left wrong.
    wrong_rows: BTreeMap<u64, u64>,
}

impl RowOnlyRuns {
    fn all_lawful(&self) -> bool {
        self.lawful == self.runs
    }
}

impl CaseLaunches<'_> {
    fn launch(&mut self, f: &Kernel, inputs: &[&DeviceBuffer<f32>]) -> Result<(Vec<f32>, f32)> {
        launch(self.gpu, &self.plan, &self.init, f, &mut self.out, inputs)
    }

    /// The fully guarded fill: exact on every run.
    fn fill_checked(&mut self, f: &Kernel) -> Result<ExactRuns> {
        let (cells, cols) = (self.plan.shape.elements(), self.plan.shape.cols);
        let sim = self.simulated.then(|| run_fill(&self.plan, &BlockOrder::Forward, Fill::Checked).as_slice().to_vec());
        let reference = |i: usize| {
            let i = i as u64;
            if i < cells {
                marker(i / cols, i % cols)
            } else {
                SENTINEL
            }
        };
        let runs = self.runs;
        let (exact, first_bad, times) = repeat_and_compare(runs, sim.as_deref(), reference, || self.launch(f, &[]))?;
        let against = if sim.is_some() { "the simulator" } else { "row*1000+col" };
        Ok(ExactRuns { runs, exact, first_bad, times, against })
    }

    /// The row-only addition: every cell a+b, only the padding marked.
    fn add_row_only(&mut self, f: &Kernel) -> Result<ExactRuns> {
        let (shape, len, overflow) = (self.plan.shape, self.plan.buffer_len(), self.plan.overflow());
        let (cells, cols) = (shape.elements(), shape.cols);
        // a and b get the same padding, sentinel-filled: the strays of the
        // last row read it.
        let (a, b) =
            (self.gpu.upload(&padded_cells(shape, len, add_a))?, self.gpu.upload(&padded_cells(shape, len, add_b))?);
        let sim = self.simulated.then(|| run_add(&self.plan, &BlockOrder::Forward).as_slice().to_vec());
        // Past the matrix, the first `overflow` cells are stored by the last
        // row's strays, each reading the sentinel from a and from b.
        let reference = |i: usize| {
            let i = i as u64;
            if i < cells {
                add_a(i / cols, i % cols) + add_b(i / cols, i % cols)
            } else if i - cells < overflow {
                SENTINEL + SENTINEL
            } else {
                SENTINEL
            }
        };
        let runs = self.runs;
        let (exact, first_bad, times) =
            repeat_and_compare(runs, sim.as_deref(), reference, || self.launch(f, &[&a, &b]))?;
        let against = if sim.is_some() { "the simulator" } else { "a+b" };
        Ok(ExactRuns { runs, exact, first_bad, times, against })
    }

    /// The row-only fill: a race, so a distribution, and the invariants.
    fn fill_row_only(&mut self, f: &Kernel) -> Result<RowOnlyRuns> {
        let (shape, threads_x, overflow) = (self.plan.shape, self.plan.cfg.threads_x(), self.plan.overflow());
        let mut all = RowOnlyRuns {
            runs: self.runs,
            lawful: 0,
            first_unlawful: None,
            times: Vec::with_capacity(self.runs),
            wrong_rows: BTreeMap::new(),
        };
        for _ in 0..self.runs {
            let (buf, ms) = self.launch(f, &[])?;
            all.times.push(ms);
            let run = classify_row_only(&buf, shape, threads_x);
            tally(&mut all.wrong_rows, run.wrong_rows);
            if run.possible(overflow) {
                all.lawful += 1;
            } else {
                all.first_unlawful.get_or_insert(run);
            }
        }
        Ok(all)
    }
}

/// The GPU's wrong-row counts beside the simulator's, when it has them.
fn distribution(sec: &mut GpuSection, case: &Case, plan: &LaunchPlan, gpu_dist: &BTreeMap<u64, u64>) {
    let (sim, what) = match case.simulated {
        Simulated::BlockRows => {
            let o = explore_block_rows(plan);
            (simulated(&o), format!("{} orders of the block rows", o.runs))
        }
        Simulated::Shuffles(n) => (simulated(&explore_shuffles(plan, 0, n)), format!("{n} shuffles")),
        Simulated::No => (BTreeMap::new(), String::new()),
    };
    let runs = case.runs as u64;
    let sim_total: u64 = sim.values().sum();
    sec.line(format!(
        "    rows (of {}) below row 0 left wrong by fill_row_only_checked, real GPU{}:",
        case.shape.rows - 1,
        if sim.is_empty() { String::new() } else { format!(" beside the simulator's {what}") }
    ));
    let keys: std::collections::BTreeSet<u64> = gpu_dist.keys().chain(sim.keys()).copied().collect();
    for k in keys {
        let g = gpu_dist.get(&k).copied().unwrap_or(0);
        let mut line = format!("    {k:>6} wrong: GPU {g:>5} of {runs} ({:>6})", pct_places(g, runs, 1) + "%");
        if !sim.is_empty() {
            let s = sim.get(&k).copied().unwrap_or(0);
            line.push_str(&format!("   simulated {s:>5} of {sim_total} ({:>6})", pct_places(s, sim_total, 1) + "%"));
        }
        sec.line(line);
    }
    let (lo, hi) = (gpu_dist.keys().next().copied().unwrap_or(0), gpu_dist.keys().last().copied().unwrap_or(0));
    sec.line(format!(
        "    the GPU left {} different number(s) of wrong rows, from {lo} to {hi} (which ones appear depends on the hardware's scheduling; not asserted)",
        gpu_dist.len()
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Damage;

    /// The classifier agrees with the chapter's `Damage` on simulated runs,
    /// and finds every simulated order lawful.
    #[test]
    fn classifier_matches_the_simulator() {
        for (shape, block) in [
            (Shape::new(4, 10), Dim2::new(4, 1)),
            (Shape::new(24, 100), Dim2::new(16, 4)),
            (Shape::new(5, 3), Dim2::new(8, 2)),
            (Shape::new(3, 1), Dim2::new(7, 1)),
        ] {
            let plan = launch_plan(shape, block).unwrap();
            for seed in 0..30 {
                let buf = run_fill(&plan, &BlockOrder::Shuffled(seed), Fill::RowOnly);
                let d = Damage::of(&buf, marker);
                let r = classify_row_only(buf.as_slice(), shape, plan.cfg.threads_x());
                assert_eq!(r.wrong_rows, d.wrong_rows.len() as u64);
                assert_eq!(r.padding_overwritten, d.padding_overwritten);
                assert_eq!(r.padding_overwritten, plan.overflow());
                assert!(r.row0_right && r.impossible == 0, "{shape} seed {seed}: {r:?}");
                assert!(r.possible(plan.overflow()), "{shape} seed {seed}: {r:?}");
            }
        }
    }

    #[test]
    fn classifier_catches_what_no_order_can_leave() {
        let shape = Shape::new(4, 10);
        let plan = launch_plan(shape, Dim2::new(4, 1)).unwrap();
        let mut buf = run_fill(&plan, &BlockOrder::Reverse, Fill::RowOnly).as_slice().to_vec();
        assert_eq!(classify_row_only(&buf, shape, 12).wrong_rows, 3);
        buf[0] = 5.0; // row 0 wrong, and 5 is nobody's marker for cell 0
        buf[15] = f32::from_bits(POISON_WORD); // never written
        let r = classify_row_only(&buf, shape, 12);
        assert_eq!((r.row0_right, r.impossible), (false, 2));
        assert!(!r.possible(plan.overflow()));
    }

    #[test]
    fn writers_are_the_owner_and_the_strays() {
        let shape = Shape::new(4, 10);
        // 4x10 under 12 threads per row: cell 10 is (1,0), hit by (0,10).
        assert_eq!(writers(10, shape, 12).collect::<Vec<_>>(), vec![(1, 0), (0, 10)]);
        assert_eq!(writers(12, shape, 12).collect::<Vec<_>>(), vec![(1, 2)]);
        // Padding cell 41 is hit by the last row's second stray only.
        assert_eq!(writers(41, shape, 12).collect::<Vec<_>>(), vec![(3, 11)]);
        assert_eq!(writers(42, shape, 12).count(), 0);
    }

    /// The small-shape mode's unpadded buffers: every stray of the one-axis
    /// kernels lands inside the 256-byte rounding of the allocation.
    #[test]
    fn small_strays_stay_inside_the_allocations_rounding() {
        for shape in small_shapes() {
            let plan = launch_plan(shape, GPU_BLOCK).unwrap();
            let bytes = shape.elements() * 4;
            let reach = (shape.elements() + plan.overflow()) * 4;
            assert!(reach <= bytes.next_multiple_of(256), "{shape}: strays reach {reach} bytes of {bytes}");
        }
        assert!(small_shapes().iter().any(|&s| launch_plan(s, GPU_BLOCK).unwrap().overflow() > 0));
    }

    /// The padding of every case holds every stray store, and the large
    /// case's markers stay exact and distinct.
    #[test]
    fn cases_fit_their_padding() {
        for case in CASES {
            let plan = launch_plan(case.shape, case.block).unwrap();
            assert!(case.shape.cols <= crate::MAX_COLS);
            assert!(case.shape.rows * 1000 + case.shape.cols < 1 << 24);
            assert!(case.shape.elements() + plan.overflow() <= plan.buffer_len());
            assert_eq!(initial_buffer(&plan).len() as u64, plan.buffer_len());
            assert!(plan.cfg.grid.y as u64 <= ktrav::geometry::MAX_GRID_Y);
        }
    }
}
