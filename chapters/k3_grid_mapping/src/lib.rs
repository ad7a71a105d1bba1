//! Appendix K.3: from thread indices to matrix cells.
//!
//! Sizing a 2D grid is the 1D round-up done on x and on y separately; what
//! a matrix adds is the pairing of `threadIdx.x` with either its rows or
//! its columns. This crate builds the launch for either pairing,
//! runs every (block, thread) of it through `ktrav::sim` to prove each
//! element is touched exactly once, and measures what the choice costs in
//! 32-byte memory sectors per warp.
//!
//! The file reads in the order of a CUDA study: the CPU reference, the
//! kernel twins (one per `__global__` in `kernels/k3_grid_mapping.cu`), the
//! launch plan both the simulator and `gpu` use, the exploration, and the
//! report.

pub mod exercises;
pub mod figures;
pub mod gpu;
pub mod values;

use anyhow::{Context, Result};
use ktrav::{BlockOrder, Dim2, LaunchConfig, Shape, StorageOrder, Thread};
use ktrav_term::progress::ProgressBar;
use ktrav_term::report::{self, Report};
use std::fmt::Write as _;

/// Threads per warp (the host model's one constant).
pub use ktrav::ladder::WARP;
/// Every element is a 4-byte `f32`.
pub const ELEM_BYTES: u64 = 4;
/// The unit global memory is fetched in.
pub const SECTOR_BYTES: u64 = 32;
/// The largest matrix the simulator accepts (one counter per element).
pub const MAX_ELEMENTS: u64 = 1 << 26;

// --- 1. CPU reference -------------------------------------------------------

/// What either copy must produce: the source, element for element.
pub fn copy_reference(src: &[f32]) -> Vec<f32> {
    src.to_vec()
}

// --- 2. Kernel twins --------------------------------------------------------

// ANCHOR: mapping
/// Which matrix axis `threadIdx.x` walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// x walks columns, y walks rows: kernel `copy_x_to_col`.
    XToCol,
    /// x walks rows, y walks columns: kernel `copy_x_to_row`.
    XToRow,
}

impl Mapping {
    /// The `(row, col)` a thread is responsible for, before any guard.
    pub fn coords(self, t: &Thread) -> (u64, u64) {
        match self {
            Mapping::XToCol => (t.global_y(), t.global_x()),
            Mapping::XToRow => (t.global_x(), t.global_y()),
        }
    }

    /// The kernel's index math: the row-major offset of the element this
    /// thread copies, or `None` for a thread the guard switches off.
    pub fn element(self, t: &Thread, shape: Shape) -> Option<u64> {
        let (row, col) = self.coords(t);
        (row < shape.rows && col < shape.cols).then(|| StorageOrder::RowMajor.offset(shape, row, col))
    }

    pub fn name(self) -> &'static str {
        match self {
            Mapping::XToCol => "x -> column",
            Mapping::XToRow => "x -> row",
        }
    }

    /// The `__global__` function of `kernels/k3_grid_mapping.cu` that uses
    /// this mapping.
    pub const fn kernel(self) -> &'static str {
        match self {
            Mapping::XToCol => "copy_x_to_col",
            Mapping::XToRow => "copy_x_to_row",
        }
    }

    /// The Rust twin of [`Mapping::kernel`].
    pub fn twin(self) -> fn(Thread, &mut [f32], &[f32], u64, u64) {
        match self {
            Mapping::XToCol => copy_x_to_col,
            Mapping::XToRow => copy_x_to_row,
        }
    }
}

/// `copy_x_to_col(dst, src, rows, cols)`: one thread of the kernel, x on
/// columns. `dst[i] = src[i]` for the element the mapping gives this
/// thread, if its guard lets it through.
pub fn copy_x_to_col(t: Thread, dst: &mut [f32], src: &[f32], rows: u64, cols: u64) {
    if let Some(i) = Mapping::XToCol.element(&t, Shape::new(rows, cols)) {
        dst[i as usize] = src[i as usize];
    }
}

/// `copy_x_to_row(dst, src, rows, cols)`: the same copy with x on rows.
pub fn copy_x_to_row(t: Thread, dst: &mut [f32], src: &[f32], rows: u64, cols: u64) {
    if let Some(i) = Mapping::XToRow.element(&t, Shape::new(rows, cols)) {
        dst[i as usize] = src[i as usize];
    }
}
// ANCHOR_END: mapping

// --- 3. Launch plan ---------------------------------------------------------

impl Mapping {
    /// `shape` with the axis x walks as its columns: the shape this
    /// mapping's grid is sized for.
    pub fn walked(self, shape: Shape) -> Shape {
        match self {
            Mapping::XToCol => shape,
            Mapping::XToRow => shape.transposed(),
        }
    }

    /// The launch of this mapping's kernel: the grid must cover with x
    /// whichever axis x walks. No dynamic shared memory, no other scalars;
    /// the simulator and the GPU both launch exactly this.
    pub fn launch(self, shape: Shape, block: Dim2) -> Result<LaunchConfig> {
        Ok(LaunchConfig::covering(self.walked(shape), block)?)
    }
}

/// Runs the mapping's twin over its whole launch in the simulator and
/// returns the copy (unwritten elements stay zero).
pub fn simulate_copy(mapping: Mapping, src: &[f32], shape: Shape, cfg: &LaunchConfig, order: &BlockOrder) -> Vec<f32> {
    let mut dst = vec![0.0f32; src.len()];
    let twin = mapping.twin();
    ktrav::launch(cfg, order, |t| twin(t, &mut dst, src, shape.rows, shape.cols));
    dst
}

// --- 4. Exploration ---------------------------------------------------------

/// Checks a shape and block before anything is launched or allocated.
pub fn validate(shape: Shape, block: Dim2) -> Result<LaunchConfig> {
    let cfg = Mapping::XToCol.launch(shape, block)?;
    match shape.checked_elements() {
        Some(n) if n <= MAX_ELEMENTS => Ok(cfg),
        _ => anyhow::bail!("a {shape} matrix has more than {MAX_ELEMENTS} elements, the simulator's limit"),
    }
}

// ANCHOR: coverage
/// How often the launch touched each element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    pub never: u64,
    pub once: u64,
    pub more: u64,
}

impl Coverage {
    pub fn exact(&self, shape: Shape) -> bool {
        self.never == 0 && self.more == 0 && self.once == shape.elements()
    }
}

/// A touch counter per element, filled by running the whole launch under
/// the mapping.
pub fn coverage(mapping: Mapping, shape: Shape, cfg: &LaunchConfig) -> Coverage {
    coverage_of(shape, cfg, |t| mapping.element(t, shape))
}

/// The same count for any index rule: `element` gives the flat offset a
/// thread touches, or `None` if its guard switches it off.
pub fn coverage_of(shape: Shape, cfg: &LaunchConfig, element: impl Fn(&Thread) -> Option<u64>) -> Coverage {
    counted_coverage(shape, cfg, element, &ProgressBar::hidden())
}
// ANCHOR_END: coverage

/// [`coverage_of`], advancing `progress` by one for every block run.
fn counted_coverage(
    shape: Shape,
    cfg: &LaunchConfig,
    element: impl Fn(&Thread) -> Option<u64>,
    progress: &ProgressBar,
) -> Coverage {
    let mut touches = vec![0u32; shape.elements() as usize];
    ktrav::launch(cfg, &BlockOrder::Forward, |t| {
        if t.linear_in_block() == 0 {
            progress.inc(1);
        }
        if let Some(i) = element(&t) {
            touches[i as usize] += 1;
        }
    });
    let mut c = Coverage::default();
    for n in touches {
        match n {
            0 => c.never += 1,
            1 => c.once += 1,
            _ => c.more += 1,
        }
    }
    c
}

// ANCHOR: sectors
/// Global-memory traffic of one launch, counted warp by warp.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Warps with at least one active lane.
    pub warps: u64,
    /// 32-byte sectors touched, summed over those warps.
    pub sectors: u64,
    /// The most sectors any one warp touched.
    pub max_per_warp: u64,
    /// Sectors the data occupies: the least any launch could touch.
    pub minimum: u64,
}

/// Sectors touched by each warp's read, when every active lane reads the
/// element the mapping gives it from a row-major matrix of 4-byte floats
/// starting on a sector boundary.
pub fn traffic(mapping: Mapping, shape: Shape, cfg: &LaunchConfig) -> Traffic {
    counted_traffic(mapping, shape, cfg, &ProgressBar::hidden())
}

/// [`traffic`], advancing `progress` by one for every block run.
fn counted_traffic(mapping: Mapping, shape: Shape, cfg: &LaunchConfig, progress: &ProgressBar) -> Traffic {
    let mut total = Traffic { minimum: (shape.elements() * ELEM_BYTES).div_ceil(SECTOR_BYTES), ..Traffic::default() };
    let mut current: Option<(u64, u32)> = None;
    let mut sectors: Vec<u64> = Vec::new();
    let flush = |sectors: &mut Vec<u64>, total: &mut Traffic| {
        sectors.sort_unstable();
        sectors.dedup();
        if !sectors.is_empty() {
            total.warps += 1;
            total.sectors += sectors.len() as u64;
            total.max_per_warp = total.max_per_warp.max(sectors.len() as u64);
        }
        sectors.clear();
    };
    // The simulator runs a block's threads in linear order, so the lanes
    // of one warp arrive together.
    ktrav::launch(cfg, &BlockOrder::Forward, |t| {
        let warp = (t.linear_block(), t.linear_in_block() / WARP);
        if current != Some(warp) {
            flush(&mut sectors, &mut total);
            current = Some(warp);
            if warp.1 == 0 {
                progress.inc(1);
            }
        }
        if let Some(i) = mapping.element(&t, shape) {
            sectors.push(i * ELEM_BYTES / SECTOR_BYTES);
        }
    });
    flush(&mut sectors, &mut total);
    total
}
// ANCHOR_END: sectors

/// One of the source's launch configurations.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub label: &'static str,
    pub shape: Shape,
    pub block: Dim2,
}

/// The source's four cases.
pub const SOURCE_CASES: [Case; 4] = [
    Case { label: "blocks fit both sides exactly", shape: Shape::new(32, 32), block: Dim2::new(16, 16) },
    Case { label: "a part-filled block at both edges", shape: Shape::new(37, 61), block: Dim2::new(16, 16) },
    Case { label: "fewer rows than one block is tall", shape: Shape::new(5, 200), block: Dim2::new(16, 16) },
    Case { label: "a block wider than it is tall", shape: Shape::new(1000, 1000), block: Dim2::new(32, 8) },
];

/// The coalescing demonstration's setting: the source's 100 columns, with
/// enough rows (128) that the swapped mapping's rows exist too.
pub const DEMO_SHAPE: Shape = Shape::new(128, 100);
pub const DEMO_BLOCK: Dim2 = Dim2::new(32, 8);
pub const DEMO_BLOCK_IDX: Dim2 = Dim2::new(3, 2);
pub const DEMO_THREAD_Y: u32 = 1;
pub const DEMO_LANES: u32 = 8;

/// The demo warp's first lanes under one mapping: `(lane, row, col, address)`.
pub fn demo_lanes(mapping: Mapping) -> Vec<(u32, u64, u64, u64)> {
    let cfg = mapping.launch(DEMO_SHAPE, DEMO_BLOCK).expect("the demo launch is valid");
    (0..DEMO_LANES)
        .map(|lane| {
            let t = Thread {
                block_idx: DEMO_BLOCK_IDX,
                thread_idx: Dim2::new(lane, DEMO_THREAD_Y),
                block_dim: cfg.block,
                grid_dim: cfg.grid,
            };
            let (row, col) = mapping.coords(&t);
            (lane, row, col, StorageOrder::RowMajor.offset(DEMO_SHAPE, row, col))
        })
        .collect()
}

/// The constant step between neighbouring lanes' addresses, if there is one.
pub fn lane_stride(lanes: &[(u32, u64, u64, u64)]) -> Option<u64> {
    let steps: Vec<u64> = lanes.windows(2).map(|w| w[1].3 - w[0].3).collect();
    steps.first().copied().filter(|s| steps.iter().all(|x| x == s))
}

/// The demo lanes that are inside the matrix, and the sectors they touch.
pub fn demo_sectors(mapping: Mapping) -> (usize, usize) {
    let mut sectors: Vec<u64> = demo_lanes(mapping)
        .iter()
        .filter(|&&(_, row, col, _)| row < DEMO_SHAPE.rows && col < DEMO_SHAPE.cols)
        .map(|&(_, _, _, addr)| addr * ELEM_BYTES / SECTOR_BYTES)
        .collect();
    let lanes = sectors.len();
    sectors.sort_unstable();
    sectors.dedup();
    (lanes, sectors.len())
}

/// Blocks a custom run simulates: coverage and sectors, under both
/// mappings, for the progress bar.
fn custom_blocks(cfg: &LaunchConfig, swapped: Option<&LaunchConfig>) -> u64 {
    2 * (cfg.blocks() + swapped.map_or(0, LaunchConfig::blocks))
}

// --- 5. Report --------------------------------------------------------------

/// How many times the x -> column launch `cfg` touches each element of `shape`.
fn x_to_col_coverage(shape: Shape, cfg: &LaunchConfig, progress: &ProgressBar) -> Coverage {
    counted_coverage(shape, cfg, |t| Mapping::XToCol.element(t, shape), progress)
}

/// The header of a launch table, after its first `lead` column(s).
fn launch_header(lead: &[&str]) -> Vec<String> {
    lead.iter()
        .chain(&[
            "grid (x, y)",
            "threads (x, y)",
            "launched",
            "needed",
            "idle",
            "spare x",
            "spare y",
            "once",
            "never",
            "twice+",
        ])
        .map(|h| h.to_string())
        .collect()
}

/// One launch as a table row: grid and threads along (x, y), threads
/// launched, elements, idle threads, the spare threads along each axis
/// x and y walk, and the coverage `c`.
fn launch_cells(mapping: Mapping, shape: Shape, cfg: &LaunchConfig, c: &Coverage) -> Vec<String> {
    let waste = cfg.waste(mapping.walked(shape));
    vec![
        format!("({}, {})", cfg.grid.x, cfg.grid.y),
        format!("({}, {})", cfg.threads_x(), cfg.threads_y()),
        cfg.total_threads().to_string(),
        shape.elements().to_string(),
        waste.total.to_string(),
        waste.x.to_string(),
        waste.y.to_string(),
        c.once.to_string(),
        c.never.to_string(),
        c.more.to_string(),
    ]
}

/// What the launch tables' short column names mean.
fn launch_legend(out: &mut Report) {
    out.line("  idle: launched - needed, the threads the guard turns away");
    out.line("  spare x, spare y: threads past the matrix's edge along x in one row of threads, along y in one column");
    out.line("  once, never, twice+: elements touched that many times, counted over every thread run");
}

/// The demo warp's lanes under both mappings, one row per lane.
fn lane_table(out: &mut Report) {
    let good = demo_lanes(Mapping::XToCol);
    let bad = demo_lanes(Mapping::XToRow);
    let inside = |row: u64, col: u64| row < DEMO_SHAPE.rows && col < DEMO_SHAPE.cols;
    let offset = |&(_, row, col, addr): &(u32, u64, u64, u64)| {
        if inside(row, col) {
            addr.to_string()
        } else {
            format!("{addr}, guarded off")
        }
    };
    let mut rows = vec![["lane", "x -> column: (row, col)", "offset", "x -> row: (row, col)", "offset"]
        .map(String::from)
        .to_vec()];
    for (g, b) in good.iter().zip(&bad) {
        rows.push(vec![
            g.0.to_string(),
            format!("({}, {})", g.1, g.2),
            offset(g),
            format!("({}, {})", b.1, b.2),
            offset(b),
        ]);
    }
    out.table(&rows);
}

/// Per mapping: the step between lanes' offsets, the lanes shown that are
/// inside the matrix and the sectors they touch, and whether the mapping,
/// on its own grid, covers each of the source's cases exactly once.
fn mapping_summary(out: &mut Report) {
    let mut rows = vec![["", "x -> column", "x -> row"].map(String::from).to_vec()];
    let per = |f: &dyn Fn(Mapping) -> String| vec![f(Mapping::XToCol), f(Mapping::XToRow)];
    let step = |m: Mapping| {
        let s = lane_stride(&demo_lanes(m));
        let text = s.map_or("uneven".to_string(), |s| s.to_string());
        report::flag(s == Some(1), &text)
    };
    let lanes = |m: Mapping| demo_sectors(m).0.to_string();
    let sectors = |m: Mapping| demo_sectors(m).1.to_string();
    let exact = |m: Mapping| {
        report::join(
            SOURCE_CASES.iter().map(|c| {
                let cfg = m.launch(c.shape, c.block).expect("the source's cases launch under both mappings");
                report::verdict(coverage(m, c.shape, &cfg).exact(c.shape))
            }),
            " ",
        )
    };
    for (name, f) in [
        ("offset step, lane to lane", &step as &dyn Fn(Mapping) -> String),
        ("lanes shown inside the matrix", &lanes),
        ("32-byte sectors those lanes touch", &sectors),
        ("cases 1-4 covered exactly once", &exact),
    ] {
        let mut row = vec![name.to_string()];
        row.extend(per(f));
        rows.push(row);
    }
    out.table(&rows);
    out.line("  (each mapping on the grid sized for it: x blocks across the axis x walks)");
}

/// The sector count of each mapping's copy as a table.
fn traffic_table(out: &mut Report, traffics: &[(Mapping, Traffic)]) {
    let mut rows = vec![["mapping", "warps", "sectors", "mean per warp", "most in a warp", "fewest possible"]
        .map(String::from)
        .to_vec()];
    for (m, tr) in traffics {
        rows.push(vec![
            m.name().to_string(),
            tr.warps.to_string(),
            tr.sectors.to_string(),
            format_ratio(tr.sectors, tr.warps),
            tr.max_per_warp.to_string(),
            tr.minimum.to_string(),
        ]);
    }
    out.table(&rows);
}

/// The worked example: every figure of the source's K.3 output, and the
/// sector count beyond it.
pub fn worked_example() -> String {
    let mut out = Report::new();
    let quiet = ProgressBar::hidden();
    out.heading("K.3: four 2D launches, every thread run and counted");
    out.line("x walks the columns and y the rows; both grid axes rounded up");
    out.blank();
    let launches: Vec<(LaunchConfig, Coverage)> = SOURCE_CASES
        .iter()
        .map(|c| {
            let cfg = validate(c.shape, c.block).expect("the source's cases are valid");
            (cfg, x_to_col_coverage(c.shape, &cfg, &quiet))
        })
        .collect();
    let mut rows = vec![launch_header(&["case", "matrix", "block"])];
    for (i, (c, (cfg, coverage))) in SOURCE_CASES.iter().zip(&launches).enumerate() {
        let mut row = vec![(i + 1).to_string(), c.shape.to_string(), c.block.to_string()];
        row.extend(launch_cells(Mapping::XToCol, c.shape, cfg, coverage));
        rows.push(row);
    }
    out.table(&rows);
    launch_legend(&mut out);
    for (i, c) in SOURCE_CASES.iter().enumerate() {
        out.line(format!("  case {}: {}", i + 1, c.label));
    }
    let all = SOURCE_CASES.iter().zip(&launches).all(|(c, (_, coverage))| coverage.exact(c.shape));
    out.line(format!(
        "no element missed or repeated, in any of the {} launches: {}",
        SOURCE_CASES.len(),
        report::verdict(all)
    ));
    out.blank();

    out.heading("One warp, two mappings");
    writeln!(
        out,
        "block ({}, {}) of {DEMO_BLOCK} threads, thread row {DEMO_THREAD_Y}, its first {DEMO_LANES} lanes; offsets in a {}x{} row-major matrix, row*{} + col",
        DEMO_BLOCK_IDX.x, DEMO_BLOCK_IDX.y, DEMO_SHAPE.rows, DEMO_SHAPE.cols, DEMO_SHAPE.cols
    )
    .unwrap();
    out.blank();
    lane_table(&mut out);
    out.blank();
    mapping_summary(&mut out);
    out.blank();

    let c = SOURCE_CASES[3];
    out.heading(&format!("Sectors per warp, copying case 4 ({} floats, {} blocks)", c.shape, c.block));
    let traffics: Vec<(Mapping, Traffic)> = [Mapping::XToCol, Mapping::XToRow]
        .into_iter()
        .map(|m| (m, traffic(m, c.shape, &m.launch(c.shape, c.block).expect("valid"))))
        .collect();
    traffic_table(&mut out, &traffics);
    out.line(format!(
        "x -> row over x -> column, in sectors requested: {}",
        format_ratio(traffics[1].1.sectors, traffics[0].1.sectors)
    ));
    out.into_string()
}

fn format_ratio(a: u64, b: u64) -> String {
    if b == 0 {
        return "n/a".into();
    }
    format!("{:.2}", a as f64 / b as f64)
}

/// The report for any shape and block: launch, waste and coverage under
/// both mappings, and their sector counts. Call [`validate`] first; a
/// large run shows its progress on stderr.
pub fn experiment_report(shape: Shape, block: Dim2) -> Result<String> {
    let cfg = validate(shape, block).context("the x -> column launch")?;
    let swapped = Mapping::XToRow.launch(shape, block);
    let progress = ktrav_term::progress::bar(
        "simulating both mappings",
        custom_blocks(&cfg, swapped.as_ref().ok()),
        // about a second of simulation: 2^26 thread steps
        (1 << 26) / cfg.block.count(),
    );
    let mut out = Report::new();
    out.line(format!("a {shape} matrix, {block} blocks, each mapping simulated thread by thread"));
    let mut rows = vec![launch_header(&["mapping"])];
    let mut launched = vec![(Mapping::XToCol, cfg, x_to_col_coverage(shape, &cfg, &progress))];
    if let Ok(swapped) = &swapped {
        let c = counted_coverage(shape, swapped, |t| Mapping::XToRow.element(t, shape), &progress);
        launched.push((Mapping::XToRow, *swapped, c));
    }
    for (m, cfg, c) in &launched {
        let mut row = vec![m.name().to_string()];
        row.extend(launch_cells(*m, shape, cfg, c));
        rows.push(row);
    }
    out.table(&rows);
    launch_legend(&mut out);
    if let Err(e) = &swapped {
        out.line(format!("x -> row: cannot be launched on this shape: {e}"));
    }
    for (m, _, c) in &launched {
        out.line(format!("{}: every element touched exactly once: {}", m.name(), report::verdict(c.exact(shape))));
    }
    let traffics: Vec<(Mapping, Traffic)> =
        launched.iter().map(|(m, cfg, _)| (*m, counted_traffic(*m, shape, cfg, &progress))).collect();
    progress.finish_and_clear();
    out.blank();
    out.line("32-byte sectors each warp's read touches:");
    traffic_table(&mut out, &traffics);
    Ok(out.into_string())
}

/// Every output the K.3 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k3_grid_mapping.txt", worked_example()),
        ("k3_grid_mapping-exercise.txt", exercises::shown()),
        ("k3_grid_mapping-find-the-bug.txt", exercises::find_the_bug_shown()),
        ("k3_grid_mapping-versions.txt", CHAPTER.ladder_text()),
    ]
}

/// K.3 as one value: what `main`, the root runner, the GPU suite and the
/// book's tests read.
pub const CHAPTER: ktrav::Chapter = ktrav::Chapter {
    id: "k3_grid_mapping",
    section: "K.3",
    title: "From thread indices to matrix cells",
    report: || vec![worked_example()],
    shown_outputs,
    figures: figures::figures,
    kernel_source: Some(include_str!("../../../kernels/k3_grid_mapping.cu")),
    values: values::values,
    gpu: Some(&gpu::ENTRY),
    exercises: exercises::EXERCISES,
    sim_exercises: exercises::SIM_EXERCISES,
    versions: &VERSIONS,
};

// --- How fast can it go -------------------------------------------------------

/// The faster copies of `kernels/k3_grid_mapping.cu`, in order. Each takes
/// `(dst, src, rows, cols)` with 64-bit rows and cols and walks the flat
/// index in a 1D grid-stride loop, so any grid is correct.
pub const VERSIONS: [ktrav::ladder::Version; 3] = [
    ktrav::ladder::Version {
        kernel: "copy_v1_grid_stride",
        block: ktrav::ladder::BlockRule::OneDimensional,
        static_shared: 0,
        plan: copy_v1_plan,
    },
    ktrav::ladder::Version {
        kernel: "copy_v2_float4",
        block: ktrav::ladder::BlockRule::OneDimensional,
        static_shared: 0,
        plan: copy_v2_plan,
    },
    ktrav::ladder::Version {
        kernel: "copy_v3_float4_x4",
        block: ktrav::ladder::BlockRule::OneDimensional,
        static_shared: 0,
        plan: copy_v3_plan,
    },
];

/// v1: 256-thread blocks, one float per thread per round, 8 blocks per SM.
pub fn copy_v1_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    ktrav::ladder::grid_stride(shape.elements(), 256, 1, sms).map(ktrav::ladder::plain)
}

/// v2: as v1, four floats per thread per round.
pub fn copy_v2_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    ktrav::ladder::grid_stride(shape.elements(), 256, 4, sms).map(ktrav::ladder::plain)
}

/// v3: as v1, sixteen floats per thread per round.
pub fn copy_v3_plan(shape: Shape, sms: u32) -> Result<ktrav::ladder::Plan, ktrav::GeometryError> {
    ktrav::ladder::grid_stride(shape.elements(), 256, 16, sms).map(ktrav::ladder::plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn source_launch_figures() {
        let got: Vec<_> = SOURCE_CASES
            .iter()
            .map(|c| {
                let cfg = validate(c.shape, c.block).unwrap();
                let w = cfg.waste(c.shape);
                (cfg.grid.x, cfg.grid.y, cfg.threads_x(), cfg.threads_y(), w.x, w.y, w.total)
            })
            .collect();
        assert_eq!(
            got,
            [
                (2, 2, 32, 32, 0, 0, 0),
                (4, 3, 64, 48, 3, 11, 815),
                (13, 1, 208, 16, 8, 11, 2328),
                (32, 125, 1024, 1000, 24, 0, 24000)
            ]
        );
    }

    #[test]
    fn demo_addresses() {
        let good = demo_lanes(Mapping::XToCol);
        assert_eq!(good[0], (0, 17, 96, 1796));
        assert_eq!(good[7], (7, 17, 103, 1803));
        assert_eq!(lane_stride(&good), Some(1));
        let bad = demo_lanes(Mapping::XToRow);
        assert_eq!(bad[0], (0, 96, 17, 9617));
        assert_eq!(bad[7], (7, 103, 17, 10317));
        assert_eq!(lane_stride(&bad), Some(DEMO_SHAPE.cols));
        assert_eq!(lane_stride(&[(0, 0, 0, 0), (1, 0, 1, 1), (2, 0, 3, 3)]), None);
        // Lanes 4..7 of x -> column are past column 99 and do not count.
        assert_eq!(demo_sectors(Mapping::XToCol), (4, 1));
        assert_eq!(demo_sectors(Mapping::XToRow), (8, 8));
    }

    #[test]
    fn sectors_of_case_4() {
        let c = SOURCE_CASES[3];
        let col = traffic(Mapping::XToCol, c.shape, &Mapping::XToCol.launch(c.shape, c.block).unwrap());
        let row = traffic(Mapping::XToRow, c.shape, &Mapping::XToRow.launch(c.shape, c.block).unwrap());
        // A full warp reads 32 consecutive floats (128 bytes, 4 sectors);
        // the swapped one reads 32 floats 4000 bytes apart (32 sectors).
        assert_eq!((col.warps, col.sectors, col.max_per_warp, col.minimum), (32_000, 125_000, 4, 125_000));
        assert_eq!((row.warps, row.sectors, row.max_per_warp), (32_000, 1_000_000, 32));
    }

    #[test]
    fn a_broken_guard_is_caught() {
        // Guarding the flat index instead of each axis: the threads past the
        // last column wrap onto the next row, so some elements are touched
        // twice. The coverage count must say so.
        let shape = Shape::new(37, 61);
        let cfg = validate(shape, Dim2::new(16, 16)).unwrap();
        let broken = coverage_of(shape, &cfg, |t| {
            let i = t.global_y() * shape.cols + t.global_x();
            (i < shape.elements()).then_some(i)
        });
        assert!(!broken.exact(shape));
        assert_eq!(broken.never, 0);
        assert!(broken.more > 0);
        assert!(coverage(Mapping::XToCol, shape, &cfg).exact(shape));
    }

    #[test]
    fn bad_inputs_are_refused() {
        let refusal = |shape: Shape, block: Dim2| validate(shape, block).unwrap_err().to_string();
        assert!(refusal(Shape::new(0, 5), Dim2::new(16, 16)).contains("zero"));
        assert!(refusal(Shape::new(5, 5), Dim2::new(64, 32)).contains("2048 threads"));
        assert!(refusal(Shape::new(70_000, 1), Dim2::new(1, 1)).contains("65535"));
        assert!(refusal(Shape::new(1 << 14, 1 << 14), Dim2::new(32, 8)).contains("elements"));
        // A shape the x -> row mapping cannot launch: its y covers 2^20 columns.
        let tall = Shape::new(5, 1 << 20);
        assert!(Mapping::XToRow.launch(tall, Dim2::new(16, 16)).unwrap_err().to_string().contains("along y"));
        assert!(experiment_report(tall, Dim2::new(16, 16)).unwrap().contains("cannot be launched"));
    }

    proptest! {
        /// Both mappings copy every element of any shape, with any block.
        #[test]
        fn both_mappings_copy_exactly(rows in 1u64..90, cols in 1u64..90, bx in 1u32..64, by in 1u32..16) {
            let shape = Shape::new(rows, cols);
            let src: Vec<f32> = (0..rows * cols).map(|i| i as f32 + 1.0).collect();
            for mapping in [Mapping::XToCol, Mapping::XToRow] {
                let cfg = mapping.launch(shape, Dim2::new(bx, by)).unwrap();
                prop_assert!(coverage(mapping, shape, &cfg).exact(shape));
                let dst = simulate_copy(mapping, &src, shape, &cfg, &BlockOrder::Shuffled(rows * 131 + cols));
                prop_assert_eq!(dst, copy_reference(&src));
            }
        }

        /// Once a row is at least a sector wide (8 floats), the x -> column
        /// mapping never touches more sectors than the swapped one, and when
        /// rows start on sector boundaries it touches the fewest possible.
        #[test]
        fn x_to_col_is_never_worse(rows in 1u64..70, cols in 8u64..70, by in 1u32..8) {
            let (shape, block) = (Shape::new(rows, cols), Dim2::new(32, by));
            let col = traffic(Mapping::XToCol, shape, &Mapping::XToCol.launch(shape, block).unwrap());
            let row = traffic(Mapping::XToRow, shape, &Mapping::XToRow.launch(shape, block).unwrap());
            prop_assert!(col.sectors <= row.sectors);
            prop_assert!(col.sectors >= col.minimum);
            if cols % 8 == 0 {
                prop_assert_eq!(col.sectors, col.minimum);
            }
        }
    }
}
