//! Appendix K.3: mapping matrix coordinates onto CUDA grids.
//!
//! A 2D launch makes the 1D ceiling-division decision once per axis, and
//! one more decision the 1D case never faced: which matrix axis
//! `threadIdx.x` walks. This crate builds the launch for either choice,
//! runs every (block, thread) of it through `ktrav::sim` to prove each
//! element is touched exactly once, and measures what the choice costs in
//! 32-byte memory sectors per warp.

pub mod figures;
pub mod gpu;

use ktrav::report::{self, Report};
use ktrav::{BlockOrder, Dim2, LaunchConfig, StorageOrder, Thread};
use std::fmt::Write as _;

/// Threads per warp.
pub const WARP: u32 = 32;
/// Every element is a 4-byte `f32`.
pub const ELEM_BYTES: u64 = 4;
/// The unit global memory is fetched in.
pub const SECTOR_BYTES: u64 = 32;
/// The largest matrix the simulator accepts (one counter per element).
pub const MAX_ELEMENTS: u64 = 1 << 26;

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
    /// The grid this mapping needs: x must cover whichever axis x walks.
    pub fn launch(self, rows: u64, cols: u64, block: Dim2) -> Result<LaunchConfig, String> {
        let cfg = match self {
            Mapping::XToCol => LaunchConfig::for_matrix(rows, cols, block),
            Mapping::XToRow => LaunchConfig::covering(rows, cols, block),
        };
        cfg.map_err(|e| e.to_string())
    }

    /// The `(row, col)` a thread is responsible for, before any guard.
    pub fn coords(self, t: &Thread) -> (u64, u64) {
        match self {
            Mapping::XToCol => (t.global_y(), t.global_x()),
            Mapping::XToRow => (t.global_x(), t.global_y()),
        }
    }

    /// The kernel's index math: the row-major offset of the element this
    /// thread copies, or `None` for a thread the guard switches off.
    pub fn element(self, t: &Thread, rows: u64, cols: u64) -> Option<u64> {
        let (row, col) = self.coords(t);
        (row < rows && col < cols).then(|| StorageOrder::RowMajor.offset(rows, cols, row, col))
    }

    pub fn name(self) -> &'static str {
        match self {
            Mapping::XToCol => "x -> column",
            Mapping::XToRow => "x -> row",
        }
    }
}

/// The 2D copy kernel, one thread's body: `dst[i] = src[i]` for the
/// element the mapping gives this thread, if any.
pub fn copy_body(mapping: Mapping, t: Thread, src: &[f32], dst: &mut [f32], rows: u64, cols: u64) {
    if let Some(i) = mapping.element(&t, rows, cols) {
        dst[i as usize] = src[i as usize];
    }
}
// ANCHOR_END: mapping

/// Checks a shape and block before anything is launched.
pub fn validate(rows: u64, cols: u64, block: Dim2) -> Result<LaunchConfig, String> {
    let cfg = Mapping::XToCol.launch(rows, cols, block)?;
    match rows.checked_mul(cols) {
        Some(n) if n <= MAX_ELEMENTS => Ok(cfg),
        _ => Err(format!("a {rows}x{cols} matrix has more than {MAX_ELEMENTS} elements, the simulator's limit")),
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
    pub fn exact(&self, rows: u64, cols: u64) -> bool {
        self.never == 0 && self.more == 0 && self.once == rows * cols
    }
}

/// Runs every (block, thread) of the mapping's launch and counts the
/// touches of every element.
pub fn coverage(mapping: Mapping, rows: u64, cols: u64, cfg: &LaunchConfig) -> Coverage {
    coverage_of(rows, cols, cfg, |t| mapping.element(t, rows, cols))
}

/// The same count for any index rule: `element` gives the flat offset a
/// thread touches, or `None` if its guard switches it off.
pub fn coverage_of(rows: u64, cols: u64, cfg: &LaunchConfig, element: impl Fn(&Thread) -> Option<u64>) -> Coverage {
    let mut touches = vec![0u32; (rows * cols) as usize];
    ktrav::launch(cfg, &BlockOrder::Forward, |t| {
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
// ANCHOR_END: coverage

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
/// element the mapping gives it from a `rows x cols` row-major matrix of
/// 4-byte floats starting on a sector boundary.
pub fn traffic(mapping: Mapping, rows: u64, cols: u64, cfg: &LaunchConfig) -> Traffic {
    let mut total = Traffic { minimum: (rows * cols * ELEM_BYTES).div_ceil(SECTOR_BYTES), ..Traffic::default() };
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
        }
        if let Some(i) = mapping.element(&t, rows, cols) {
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
    pub rows: u64,
    pub cols: u64,
    pub block: Dim2,
}

/// The source's four cases.
pub const SOURCE_CASES: [Case; 4] = [
    Case { label: "Case 1 (both axes divide evenly)", rows: 32, cols: 32, block: Dim2::new(16, 16) },
    Case { label: "Case 2 (neither axis divides evenly)", rows: 37, cols: 61, block: Dim2::new(16, 16) },
    Case { label: "Case 3 (one axis far smaller than the block)", rows: 5, cols: 200, block: Dim2::new(16, 16) },
    Case { label: "Case 4 (a non-square block)", rows: 1000, cols: 1000, block: Dim2::new(32, 8) },
];

/// Prints one launch configuration and its coverage; returns whether the
/// coverage was exact.
fn config_lines(out: &mut Report, label: &str, rows: u64, cols: u64, cfg: &LaunchConfig) -> bool {
    let waste = cfg.waste(cols, rows);
    let needed = rows * cols;
    out.line(format!("{label}: {rows}x{cols} matrix, block={}", cfg.block));
    out.line(format!(
        "  grid = {} x {} blocks, threads launched = {} x {}",
        cfg.grid.x,
        cfg.grid.y,
        cfg.threads_x(),
        cfg.threads_y()
    ));
    out.line(format!(
        "  wasted (guarded) threads: {} along x, {} along y, {} in total ({} launched - {needed} needed)",
        waste.x,
        waste.y,
        waste.total,
        cfg.total_threads()
    ));
    let c = coverage(Mapping::XToCol, rows, cols, cfg);
    out.line(format!(
        "  coverage: {} elements touched 0 times, {} exactly once, {} more than once",
        c.never, c.once, c.more
    ));
    c.exact(rows, cols)
}

/// The coalescing demonstration's setting: the source's 100 columns, with
/// enough rows (128) that the swapped mapping's rows exist too.
pub const DEMO_ROWS: u64 = 128;
pub const DEMO_COLS: u64 = 100;
pub const DEMO_BLOCK: Dim2 = Dim2::new(32, 8);
pub const DEMO_BLOCK_IDX: Dim2 = Dim2::new(3, 2);
pub const DEMO_THREAD_Y: u32 = 1;
pub const DEMO_LANES: u32 = 8;

/// The demo warp's first lanes under one mapping: `(lane, row, col, address)`.
pub fn demo_lanes(mapping: Mapping) -> Vec<(u32, u64, u64, u64)> {
    let cfg = mapping.launch(DEMO_ROWS, DEMO_COLS, DEMO_BLOCK).expect("the demo launch is valid");
    (0..DEMO_LANES)
        .map(|lane| {
            let t = Thread {
                block_idx: DEMO_BLOCK_IDX,
                thread_idx: Dim2::new(lane, DEMO_THREAD_Y),
                block_dim: cfg.block,
                grid_dim: cfg.grid,
            };
            let (row, col) = mapping.coords(&t);
            (lane, row, col, row * DEMO_COLS + col)
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
        .filter(|&&(_, row, col, _)| row < DEMO_ROWS && col < DEMO_COLS)
        .map(|&(_, _, _, addr)| addr * ELEM_BYTES / SECTOR_BYTES)
        .collect();
    let lanes = sectors.len();
    sectors.sort_unstable();
    sectors.dedup();
    (lanes, sectors.len())
}

fn lane_lines(out: &mut Report, mapping: Mapping) -> Option<u64> {
    let lanes = demo_lanes(mapping);
    for &(lane, row, col, addr) in &lanes {
        let past = if row >= DEMO_ROWS || col >= DEMO_COLS { "  (past the edge: the guard skips it)" } else { "" };
        writeln!(out, "  threadIdx.x={lane} -> (row={row}, col={col}) -> address {addr}{past}").unwrap();
    }
    lane_stride(&lanes)
}

fn traffic_line(out: &mut Report, mapping: Mapping, tr: &Traffic) {
    writeln!(
        out,
        "  {:<11}: {} warps touch {} sectors, {} per warp on average, at most {}; the data fills {}",
        mapping.name(),
        tr.warps,
        tr.sectors,
        format_ratio(tr.sectors, tr.warps),
        tr.max_per_warp,
        tr.minimum
    )
    .unwrap();
}

/// The worked example: every figure of the source's K.3 output, and the
/// sector count beyond it.
pub fn worked_example() -> String {
    let mut out = Report::new();
    out.heading("K.3: 2D launch configurations, every thread accounted for");
    out.blank();
    let mut all = true;
    for c in SOURCE_CASES {
        let cfg = validate(c.rows, c.cols, c.block).expect("the source's cases are valid");
        all &= config_lines(&mut out, c.label, c.rows, c.cols, &cfg);
        out.blank();
    }
    out.line(format!(
        "every case covers its matrix exactly once, wasting only the counted threads: {}",
        report::verdict(all)
    ));
    out.blank();

    out.heading("Why x walks columns: neighbouring lanes should read neighbouring addresses");
    writeln!(
        out,
        "a {DEMO_ROWS}x{DEMO_COLS} row-major matrix (cols={DEMO_COLS}), block={DEMO_BLOCK}; fixed blockIdx=({},{}), threadIdx.y={DEMO_THREAD_Y},",
        DEMO_BLOCK_IDX.x, DEMO_BLOCK_IDX.y
    )
    .unwrap();
    out.line(format!("threadIdx.x varying across one warp (0..{} shown):", DEMO_LANES - 1));
    out.line("x -> column (col from threadIdx.x, row from threadIdx.y):");
    let good = lane_lines(&mut out, Mapping::XToCol);
    out.line(format!(
        "  consecutive threadIdx.x, consecutive addresses (stride {}): {}",
        good.map_or("uneven".to_string(), |s| s.to_string()),
        report::flag(good == Some(1), if good == Some(1) { "coalesced" } else { "NOT coalesced" })
    ));
    out.blank();
    out.line("Common trap: swap the axes and every element is still copied, but coalescing is gone.");
    out.line("x -> row (row from threadIdx.x, col from threadIdx.y):");
    let bad = lane_lines(&mut out, Mapping::XToRow);
    out.line(format!(
        "  consecutive threadIdx.x now {} addresses apart (stride = cols = {DEMO_COLS}), not 1: {}",
        bad.map_or("unevenly".to_string(), |s| s.to_string()),
        report::flag(bad == Some(1), if bad == Some(1) { "coalesced" } else { "NOT coalesced" })
    ));
    let swapped_exact: Vec<String> = SOURCE_CASES
        .iter()
        .map(|c| {
            let cfg = Mapping::XToRow.launch(c.rows, c.cols, c.block).expect("valid");
            report::verdict(coverage(Mapping::XToRow, c.rows, c.cols, &cfg).exact(c.rows, c.cols))
        })
        .collect();
    out.line(format!(
        "  the swapped mapping, on its own grid, still covers each of the four cases exactly once: {}",
        swapped_exact.join(" ")
    ));
    let (good_lanes, good_sectors) = demo_sectors(Mapping::XToCol);
    let (bad_lanes, bad_sectors) = demo_sectors(Mapping::XToRow);
    out.line("  correctness survives, the cost does not: of the lanes shown that lie inside the matrix,");
    out.line(format!(
        "  x -> row's {bad_lanes} lanes touch {bad_sectors} different 32-byte sector(s), x -> column's {good_lanes} lanes share {good_sectors}"
    ));
    out.blank();

    out.heading("Beyond the source: 32-byte sectors per warp, the real cost of the swap");
    let c = SOURCE_CASES[3];
    writeln!(out, "copying the {}x{} matrix of case 4 (4-byte floats), block={}:", c.rows, c.cols, c.block).unwrap();
    let mut per = Vec::new();
    for mapping in [Mapping::XToCol, Mapping::XToRow] {
        let cfg = mapping.launch(c.rows, c.cols, c.block).expect("valid");
        let tr = traffic(mapping, c.rows, c.cols, &cfg);
        traffic_line(&mut out, mapping, &tr);
        per.push(tr);
    }
    out.line(format!(
        "  the swapped mapping moves {}x the sectors for the same copy",
        format_ratio(per[1].sectors, per[0].sectors)
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
/// both mappings, and their sector counts.
pub fn experiment_report(rows: u64, cols: u64, block: Dim2) -> Result<String, String> {
    let cfg = validate(rows, cols, block)?;
    let mut out = Report::new();
    let exact = config_lines(&mut out, "x -> column", rows, cols, &cfg);
    out.line(format!("  exactly once: {}", report::verdict(exact)));
    let mut traffics = Vec::new();
    match Mapping::XToRow.launch(rows, cols, block) {
        Ok(swapped) => {
            let c = coverage(Mapping::XToRow, rows, cols, &swapped);
            out.line(format!(
                "x -> row: grid = {} x {} blocks; coverage {} / {} / {}, exactly once: {}",
                swapped.grid.x,
                swapped.grid.y,
                c.never,
                c.once,
                c.more,
                report::verdict(c.exact(rows, cols))
            ));
            traffics.push((Mapping::XToCol, traffic(Mapping::XToCol, rows, cols, &cfg)));
            traffics.push((Mapping::XToRow, traffic(Mapping::XToRow, rows, cols, &swapped)));
        }
        Err(e) => {
            out.line(format!("x -> row: cannot be launched on this shape: {e}"));
            traffics.push((Mapping::XToCol, traffic(Mapping::XToCol, rows, cols, &cfg)));
        }
    }
    out.line("sectors:");
    for (m, tr) in &traffics {
        traffic_line(&mut out, *m, tr);
    }
    Ok(out.into_string())
}

/// Every output the K.3 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![("k3_grid_mapping.txt", worked_example())]
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
                let cfg = validate(c.rows, c.cols, c.block).unwrap();
                let w = cfg.waste(c.cols, c.rows);
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
        assert_eq!(lane_stride(&bad), Some(DEMO_COLS));
        assert_eq!(lane_stride(&[(0, 0, 0, 0), (1, 0, 1, 1), (2, 0, 3, 3)]), None);
        // Lanes 4..7 of x -> column are past column 99 and do not count.
        assert_eq!(demo_sectors(Mapping::XToCol), (4, 1));
        assert_eq!(demo_sectors(Mapping::XToRow), (8, 8));
    }

    #[test]
    fn sectors_of_case_4() {
        let c = SOURCE_CASES[3];
        let col = traffic(Mapping::XToCol, c.rows, c.cols, &Mapping::XToCol.launch(c.rows, c.cols, c.block).unwrap());
        let row = traffic(Mapping::XToRow, c.rows, c.cols, &Mapping::XToRow.launch(c.rows, c.cols, c.block).unwrap());
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
        let (rows, cols) = (37u64, 61u64);
        let cfg = validate(rows, cols, Dim2::new(16, 16)).unwrap();
        let broken = coverage_of(rows, cols, &cfg, |t| {
            let i = t.global_y() * cols + t.global_x();
            (i < rows * cols).then_some(i)
        });
        assert!(!broken.exact(rows, cols));
        assert_eq!(broken.never, 0);
        assert!(broken.more > 0);
        assert!(coverage(Mapping::XToCol, rows, cols, &cfg).exact(rows, cols));
    }

    #[test]
    fn bad_inputs_are_refused() {
        assert!(validate(0, 5, Dim2::new(16, 16)).unwrap_err().contains("zero"));
        assert!(validate(5, 5, Dim2::new(64, 32)).unwrap_err().contains("2048 threads"));
        assert!(validate(70_000, 1, Dim2::new(1, 1)).unwrap_err().contains("65535"));
        assert!(validate(1 << 14, 1 << 14, Dim2::new(32, 8)).unwrap_err().contains("elements"));
        // A shape the x -> row mapping cannot launch: its y covers 2^20 columns.
        assert!(Mapping::XToRow.launch(5, 1 << 20, Dim2::new(16, 16)).unwrap_err().contains("along y"));
        assert!(experiment_report(5, 1 << 20, Dim2::new(16, 16)).unwrap().contains("cannot be launched"));
    }

    proptest! {
        /// Both mappings copy every element of any shape, with any block.
        #[test]
        fn both_mappings_copy_exactly(rows in 1u64..90, cols in 1u64..90, bx in 1u32..64, by in 1u32..16) {
            let src: Vec<f32> = (0..rows * cols).map(|i| i as f32 + 1.0).collect();
            for mapping in [Mapping::XToCol, Mapping::XToRow] {
                let cfg = mapping.launch(rows, cols, Dim2::new(bx, by)).unwrap();
                prop_assert!(coverage(mapping, rows, cols, &cfg).exact(rows, cols));
                let mut dst = vec![0.0f32; src.len()];
                ktrav::launch(&cfg, &BlockOrder::Shuffled(rows * 131 + cols), |t| copy_body(mapping, t, &src, &mut dst, rows, cols));
                prop_assert_eq!(&dst, &src);
            }
        }

        /// Once a row is at least a sector wide (8 floats), the x -> column
        /// mapping never touches more sectors than the swapped one, and when
        /// rows start on sector boundaries it touches the fewest possible.
        #[test]
        fn x_to_col_is_never_worse(rows in 1u64..70, cols in 8u64..70, by in 1u32..8) {
            let block = Dim2::new(32, by);
            let col = traffic(Mapping::XToCol, rows, cols, &Mapping::XToCol.launch(rows, cols, block).unwrap());
            let row = traffic(Mapping::XToRow, rows, cols, &Mapping::XToRow.launch(rows, cols, block).unwrap());
            prop_assert!(col.sectors <= row.sectors);
            prop_assert!(col.sectors >= col.minimum);
            if cols % 8 == 0 {
                prop_assert_eq!(col.sectors, col.minimum);
            }
        }
    }
}
