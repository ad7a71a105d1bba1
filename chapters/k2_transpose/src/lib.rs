//! Appendix K.2: a tiled transpose on the GPU, where shared-memory bank
//! conflicts meet boundary checks.
//!
//! The kernel (`kernels/k2_transpose.cu`) copies a tile of the input into
//! shared memory, waits at a barrier, and writes the tile back out at the
//! swapped block position. This crate runs the same body through the grid
//! simulator of `ktrav::sim`, with a tile width chosen at run time, records
//! which shared-memory word every thread touches, and derives the bank
//! figures from those records rather than from a formula.

pub mod figures;
pub mod gpu;

use ktrav::report::{self, Report};
use ktrav::{BlockOrder, Dim2, LaunchConfig, Matrix, StorageOrder, Thread};
use std::fmt::Write as _;

/// The tile width compiled into `kernels/k2_transpose.cu`.
pub const TILE: u32 = 32;
/// Shared memory is split into 32 banks, each one 4-byte word wide.
pub const BANKS: u64 = 32;
/// Threads per warp.
pub const WARP: u32 = 32;
/// Every element is a 4-byte `f32`.
pub const WORD_BYTES: u64 = 4;
/// The largest matrix the simulator accepts: 2^24 elements, so every
/// element's value `index + 1` is still exact in an `f32`.
pub const MAX_ELEMENTS: u64 = 1 << 24;

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
/// The kernel's body for one thread. Same lines as `transpose_body` in the
/// `.cu` file. `input` is `rows x cols`, `output` is `cols x rows`, both
/// row-major; the block is `w x w` threads and the tile `w` rows of words.
///
/// The kernel walks its rows of tiles in a grid-stride loop (gridDim.y is
/// capped at 65 535), with two barriers per round. Phases `2k` and `2k + 1`
/// are round `k`: before and after the first barrier; the second barrier
/// lies between phase `2k + 1` and phase `2k + 2`.
pub fn transpose_body(t: Thread, phase: usize, tile: &mut SharedTile, input: &[f32], output: &mut [f32], rows: u64, cols: u64) {
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
            output[(out_row * rows + out_col) as usize] = tile.load(tx, ty);
        }
    }
}
// ANCHOR_END: body

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
/// Transposes a row-major matrix with `width x width` blocks and a tile of
/// the given layout, running the kernel body through the grid simulator.
pub fn tiled_transpose(input: &Matrix<f32>, width: u32, layout: TileLayout, order: &BlockOrder) -> Result<TransposeRun, String> {
    assert_eq!(input.order(), StorageOrder::RowMajor, "the kernel reads a row-major input");
    let (rows, cols) = (input.rows(), input.cols());
    let cfg = validate(rows, cols, width)?;
    let mut output = vec![0.0f32; (rows * cols) as usize];
    let mut trace = Vec::new();
    let phases = 2 * cfg.rounds(rows) as usize;
    ktrav::launch_phased(&cfg, order, phases, || SharedTile::new(width, layout), |t, phase, tile| {
        transpose_body(t, phase, tile, input.as_slice(), &mut output, rows, cols);
        let warp = t.linear_in_block() / WARP;
        let step = phase % 2; // 0: the store into the tile, 1: the load from it
        trace.extend(tile.touched.drain(..).map(|word| SharedAccess { block: t.linear_block(), phase: step, warp, word }));
    });
    Ok(TransposeRun { cfg, output: Matrix::from_vec(cols, rows, StorageOrder::RowMajor, output), trace })
}
// ANCHOR_END: launch

/// The transpose written the obvious way, to check the tiled one against.
pub fn plain_transpose(m: &Matrix<f32>) -> Matrix<f32> {
    Matrix::from_fn(m.cols(), m.rows(), StorageOrder::RowMajor, |r, c| m.get(c, r))
}

/// A `rows x cols` row-major matrix holding `1, 2, 3, ...`: every element
/// distinct and none equal to the output buffer's initial zero, so a
/// misplaced or missing write always shows.
pub fn numbered(rows: u64, cols: u64) -> Matrix<f32> {
    Matrix::from_fn(rows, cols, StorageOrder::RowMajor, |r, c| (r * cols + c + 1) as f32)
}

/// The launch for a `rows x cols` input and a `width`-wide tile, or why
/// there can be none.
pub fn validate(rows: u64, cols: u64, width: u32) -> Result<LaunchConfig, String> {
    let cfg = LaunchConfig::for_matrix_strided(rows, cols, Dim2::new(width, width)).map_err(|e| e.to_string())?;
    match rows.checked_mul(cols) {
        Some(n) if n <= MAX_ELEMENTS => Ok(cfg),
        _ => Err(format!("a {rows}x{cols} matrix has more than {MAX_ELEMENTS} elements, the simulator's limit")),
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
    let range = |f: fn(&WarpRequest) -> u32| {
        (reqs.iter().map(f).min().unwrap_or(0), reqs.iter().map(f).max().unwrap_or(0))
    };
    PhaseSummary { warps: reqs.len(), banks: range(|r| r.distinct_banks), degree: range(|r| r.degree) }
}

fn span((lo, hi): (u32, u32)) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo} to {hi}")
    }
}

/// One of the source's test shapes.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub label: &'static str,
    pub rows: u64,
    pub cols: u64,
    pub tile: u32,
}

/// The source's four shapes, all with a 4-wide tile.
pub const SOURCE_CASES: [Case; 4] = [
    Case { label: "Case 1 (both dimensions a multiple of the tile)", rows: 8, cols: 8, tile: 4 },
    Case { label: "Case 2 (neither dimension a multiple of the tile)", rows: 7, cols: 5, tile: 4 },
    Case { label: "Case 3 (larger, non-square, neither a multiple)", rows: 10, cols: 13, tile: 4 },
    Case { label: "Case 4 (one dimension smaller than a whole tile)", rows: 3, cols: 11, tile: 4 },
];

/// The block orders every case is run in: the result must not depend on it.
pub fn orders() -> [BlockOrder; 3] {
    [BlockOrder::Forward, BlockOrder::Reverse, BlockOrder::Shuffled(0x4B32)]
}

/// Checks one shape: both tile layouts, every block order, against the
/// plain transpose. Returns the launch and the verdict.
pub fn check_case(rows: u64, cols: u64, tile: u32) -> Result<(LaunchConfig, bool), String> {
    let input = numbered(rows, cols);
    let expect = plain_transpose(&input);
    let cfg = validate(rows, cols, tile)?;
    let mut ok = true;
    for layout in [TileLayout::Square, TileLayout::Padded] {
        for order in orders() {
            ok &= tiled_transpose(&input, tile, layout, &order)?.output == expect;
        }
    }
    Ok((cfg, ok))
}

fn case_lines(out: &mut Report, label: &str, rows: u64, cols: u64, tile: u32) -> Result<bool, String> {
    let (cfg, ok) = check_case(rows, cols, tile)?;
    let boundary = !rows.is_multiple_of(tile as u64) || !cols.is_multiple_of(tile as u64);
    out.line(format!(
        "{label}: {rows}x{cols} matrix, tile_width={tile}, grid={} blocks, boundary tiles: {}",
        cfg.grid,
        if boundary { "yes" } else { "no" }
    ));
    out.line(format!(
        "  tiled simulation equals the plain transpose, element for element: {}",
        report::verdict(ok)
    ));
    Ok(ok)
}

/// The two phases' bank figures for one tile layout, traced on a matrix.
pub fn bank_figures(rows: u64, cols: u64, width: u32, layout: TileLayout) -> Result<[PhaseSummary; 2], String> {
    let run = tiled_transpose(&numbered(rows, cols), width, layout, &BlockOrder::Forward)?;
    Ok([summarise(&requests(&run.trace, 0)), summarise(&requests(&run.trace, 1))])
}

fn bank_lines(out: &mut Report, rows: u64, cols: u64, width: u32) -> Result<[[PhaseSummary; 2]; 2], String> {
    let mut both = [[summarise(&[]); 2]; 2];
    for (i, layout) in [TileLayout::Square, TileLayout::Padded].into_iter().enumerate() {
        let [store, load] = bank_figures(rows, cols, width, layout)?;
        both[i] = [store, load];
        out.line(format!(
            "{}: {} bytes of shared memory, rows {} words apart",
            layout.declaration(width),
            layout.shared_bytes(width),
            layout.stride(width)
        ));
        out.line(format!(
            "  phase 0, store tile[ty][tx] (a row):    {} distinct bank(s), conflict degree {}  ({} warps)",
            span(store.banks),
            span(store.degree),
            store.warps
        ));
        out.line(format!(
            "  phase 1, load  tile[tx][ty] (a column): {} distinct bank(s), conflict degree {}  ({} warps)",
            span(load.banks),
            span(load.degree),
            load.warps
        ));
    }
    Ok(both)
}

/// Whether, on every shape given, with the kernels' 32-wide tile, the
/// boundary guard changed nothing but the number of lanes: every padded
/// request is conflict-free, and every square column read piles all of its
/// active lanes onto one bank. Returns (warp requests checked, verdict).
pub fn guards_leave_banks_alone(shapes: &[(u64, u64)]) -> (usize, bool) {
    let (mut checked, mut ok) = (0, true);
    for &(rows, cols) in shapes {
        for layout in [TileLayout::Square, TileLayout::Padded] {
            let run = tiled_transpose(&numbered(rows, cols), TILE, layout, &BlockOrder::Forward).expect("valid shape");
            for phase in [0, 1] {
                for r in requests(&run.trace, phase) {
                    checked += 1;
                    ok &= match (layout, phase) {
                        (TileLayout::Square, 1) => r.distinct_banks == 1 && r.degree == r.lanes,
                        _ => r.degree == 1 && r.distinct_banks == r.lanes,
                    };
                }
            }
        }
    }
    (checked, ok)
}

/// The worked example: every figure of the source's K.2 output.
pub fn worked_example() -> String {
    let mut out = Report::new();
    out.heading("K.2: a boundary-checked tiled transpose, run through the grid simulator");
    out.blank();
    let mut all = true;
    for c in SOURCE_CASES {
        all &= case_lines(&mut out, c.label, c.rows, c.cols, c.tile).expect("the source's shapes are valid");
    }
    out.blank();
    out.line(format!(
        "all {} cases verified (both tiles, forward, reversed and shuffled block order): {}",
        SOURCE_CASES.len(),
        report::verdict(all)
    ));
    out.blank();

    out.heading("Shared-memory banks of the kernels' 32-wide tile, traced on a 32x32 matrix");
    let [[_, square], [_, padded]] = bank_lines(&mut out, TILE as u64, TILE as u64, TILE).expect("32x32 is valid");
    let naive_banks = square.banks.1;
    let padded_banks = padded.banks.0;
    writeln!(out, "column read of {}: {naive_banks} distinct bank(s) (1 = every lane in one bank, a 32-way conflict)", TileLayout::Square.declaration(TILE)).unwrap();
    writeln!(out, "column read of {}: {padded_banks} distinct bank(s) (32 = one lane per bank, no conflict)", TileLayout::Padded.declaration(TILE)).unwrap();
    let shapes: Vec<(u64, u64)> = SOURCE_CASES.iter().map(|c| (c.rows, c.cols)).chain([(70, 45)]).collect();
    let (checked, guards_ok) = guards_leave_banks_alone(&shapes);
    let list: Vec<String> = shapes.iter().map(|(r, c)| format!("{r}x{c}")).collect();
    writeln!(out, "with boundary tiles ({}, tile 32), {checked} warp requests checked:", list.join(", ")).unwrap();
    out.line("  the guard only switches lanes off; the padded tile stays conflict-free and the square");
    let ok = naive_banks == 1 && padded_banks == 32 && guards_ok;
    out.line(format!(
        "  tile's column read still lands every active lane in one bank: {}",
        report::flag(ok, if ok { "confirmed" } else { "MISMATCH" })
    ));
    out.into_string()
}

/// The report for any shape and tile width: the correctness check and both
/// tiles' bank figures on that shape.
pub fn experiment_report(rows: u64, cols: u64, tile: u32) -> Result<String, String> {
    let mut out = Report::new();
    case_lines(&mut out, "Custom", rows, cols, tile)?;
    bank_lines(&mut out, rows, cols, tile)?;
    Ok(out.into_string())
}

/// Every output the K.2 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![("k2_transpose.txt", worked_example())]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn source_shapes_have_the_source_grids() {
        let grids: Vec<String> =
            SOURCE_CASES.iter().map(|c| validate(c.rows, c.cols, c.tile).unwrap().grid.to_string()).collect();
        assert_eq!(grids, ["2x2", "2x2", "4x3", "3x1"]);
        for c in SOURCE_CASES {
            assert!(check_case(c.rows, c.cols, c.tile).unwrap().1, "{}", c.label);
        }
    }

    #[test]
    fn tile_sizes_match_the_kernels_declarations() {
        assert_eq!(TileLayout::Square.shared_bytes(TILE), 4096);
        assert_eq!(TileLayout::Padded.shared_bytes(TILE), 4224);
    }

    #[test]
    fn column_reads_of_a_full_tile() {
        let [store, load] = bank_figures(32, 32, TILE, TileLayout::Square).unwrap();
        assert_eq!((store.warps, store.banks, store.degree), (32, (32, 32), (1, 1)));
        assert_eq!((load.warps, load.banks, load.degree), (32, (1, 1), (32, 32)));
        let [store, load] = bank_figures(32, 32, TILE, TileLayout::Padded).unwrap();
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
        let run = tiled_transpose(&numbered(4, 4), 4, TileLayout::Square, &BlockOrder::Forward).unwrap();
        assert_eq!(requests(&run.trace, 1), vec![WarpRequest { lanes: 16, distinct_banks: 16, degree: 1 }]);
    }

    #[test]
    fn guards_only_switch_lanes_off() {
        // 7x5 at tile 32: one block; the column read has 5 warps of 7 lanes.
        let run = tiled_transpose(&numbered(7, 5), TILE, TileLayout::Square, &BlockOrder::Forward).unwrap();
        assert_eq!(requests(&run.trace, 1), vec![WarpRequest { lanes: 7, distinct_banks: 1, degree: 7 }; 5]);
        // Per tile layout: 7 store requests (one per input row) and 5 loads.
        assert_eq!(guards_leave_banks_alone(&[(7, 5)]), (2 * (7 + 5), true));
    }

    #[test]
    fn padding_by_one_is_tuned_for_32_wide_tiles() {
        // A 16x16 block: one warp spans two thread rows (the page's Try it).
        let [_, square] = bank_figures(33, 65, 16, TileLayout::Square).unwrap();
        let [store, load] = bank_figures(33, 65, 16, TileLayout::Padded).unwrap();
        assert_eq!(square.degree.1, 8);
        assert_eq!((store.degree.1, load.degree.1), (2, 2));
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(validate(0, 3, 4).unwrap_err().contains("zero"));
        assert!(validate(3, 3, 33).unwrap_err().contains("1089 threads"));
        assert!(validate(1, 1 << 30, 1).unwrap_err().contains("elements"));
        assert!(validate(1 << 13, 1 << 13, 32).unwrap_err().contains("elements"));
        assert!(validate(u64::MAX, 2, 32).is_err());
    }

    /// gridDim.y stops at 65535: a taller matrix is still transposed
    /// correctly, each block going round the grid-stride loop.
    #[test]
    fn tall_matrices_take_several_rounds() {
        let rows = 2 * 65_535 + 5;
        let input = numbered(rows, 1);
        let run = tiled_transpose(&input, 1, TileLayout::Padded, &BlockOrder::Reverse).unwrap();
        assert_eq!((run.cfg.grid.y, run.cfg.rounds(rows)), (65_535, 3));
        assert!(run.output == plain_transpose(&input));
    }

    #[test]
    fn trace_records_every_guarded_access() {
        // 3x11 input: 33 elements stored in phase 0 and loaded in phase 1.
        let run = tiled_transpose(&numbered(3, 11), 4, TileLayout::Padded, &BlockOrder::Forward).unwrap();
        assert_eq!(run.trace.iter().filter(|a| a.phase == 0).count(), 33);
        assert_eq!(run.trace.iter().filter(|a| a.phase == 1).count(), 33);
    }

    proptest! {
        /// Any shape, any tile width a block can hold, either tile, any block
        /// order: the tiled transpose equals the plain one.
        #[test]
        fn tiled_equals_plain(rows in 1u64..70, cols in 1u64..70, tile in 1u32..=32, padded in any::<bool>(), seed in any::<u64>()) {
            let input = numbered(rows, cols);
            let layout = if padded { TileLayout::Padded } else { TileLayout::Square };
            let run = tiled_transpose(&input, tile, layout, &BlockOrder::Shuffled(seed)).unwrap();
            prop_assert_eq!(run.output, plain_transpose(&input));
        }

        /// Padding a 32-wide tile removes every conflict of the column read,
        /// whatever the shape.
        #[test]
        fn padding_always_resolves(rows in 1u64..80, cols in 1u64..80) {
            let [_, load] = bank_figures(rows, cols, TILE, TileLayout::Padded).unwrap();
            prop_assert_eq!(load.degree, (1, 1));
        }
    }
}
