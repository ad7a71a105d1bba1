//! Appendix K.1: row-major versus column-major. Storage is not traversal.
//!
//! Storage order decides where an element lives; the loop nest decides the
//! order in which elements are visited. This chapter keeps the data fixed,
//! varies the visiting order, and counts what a cache makes of each order
//! with a deterministic simulator, so the cost is a count, not a timing.

use ktrav::report::{self, Report};
use ktrav::{Matrix, StorageOrder};
use std::fmt::Write as _;

pub mod measure;

// ANCHOR: cache
/// The shape of a cache: `lines` lines of `line_bytes` bytes each, grouped
/// into sets of `ways` lines. A line can live only in set `line % sets`,
/// and each set evicts its least recently used line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheConfig {
    pub lines: u64,
    pub line_bytes: u64,
    pub ways: u64,
}

impl CacheConfig {
    /// Every line may go anywhere: one set of `lines` ways.
    pub const fn fully_associative(lines: u64, line_bytes: u64) -> Self {
        CacheConfig { lines, line_bytes, ways: lines }
    }

    pub const fn sets(&self) -> u64 {
        self.lines / self.ways
    }
}

/// Hit and miss counts of one simulated run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
}

impl CacheStats {
    pub fn accesses(&self) -> u64 {
        self.hits + self.misses
    }
}

/// A set-associative LRU cache that only tracks which lines it holds.
pub struct Cache {
    cfg: CacheConfig,
    /// `sets * ways` line numbers; each set's slice is ordered from most to
    /// least recently used, and only its first `filled[set]` entries count.
    slots: Vec<u64>,
    filled: Vec<u32>,
    /// The line touched last: always the most recent of its set, so a
    /// repeat touch is a hit with nothing to reorder.
    last: Option<u64>,
    stats: CacheStats,
}

impl Cache {
    /// An empty cache. The configuration must already be valid
    /// (see [`validate`]).
    pub fn new(cfg: CacheConfig) -> Self {
        let sets = cfg.sets() as usize;
        Cache { cfg, slots: vec![0; cfg.lines as usize], filled: vec![0; sets], last: None, stats: CacheStats::default() }
    }

    /// Touches the byte at `address`; returns whether it was a hit.
    pub fn access(&mut self, address: u64) -> bool {
        let line = address / self.cfg.line_bytes;
        if self.last == Some(line) {
            self.stats.hits += 1;
            return true;
        }
        self.last = Some(line);
        let set = (line % self.cfg.sets()) as usize;
        let ways = self.cfg.ways as usize;
        let filled = self.filled[set] as usize;
        let lines = &mut self.slots[set * ways..(set + 1) * ways];
        if let Some(pos) = lines[..filled].iter().position(|&l| l == line) {
            lines[..=pos].rotate_right(1); // move to the front: most recent
            self.stats.hits += 1;
            return true;
        }
        // A miss: shift everything back one place, dropping the least
        // recently used line if the set is full, and put the new line first.
        let keep = if filled < ways {
            self.filled[set] += 1;
            filled + 1
        } else {
            ways
        };
        lines[..keep].rotate_right(1);
        lines[0] = line;
        self.stats.misses += 1;
        false
    }

    pub fn stats(&self) -> CacheStats {
        self.stats
    }
}
// ANCHOR_END: cache

/// Why a cache or matrix shape cannot be simulated.
pub fn validate(rows: u64, cols: u64, cfg: &CacheConfig) -> Result<(), String> {
    if rows == 0 || cols == 0 {
        return Err("matrix dimensions must be positive".into());
    }
    rows.checked_mul(cols).filter(|n| *n <= MAX_ELEMENTS).ok_or_else(|| {
        format!("a {rows}x{cols} matrix has more than {MAX_ELEMENTS} elements, the simulator's limit")
    })?;
    if cfg.lines == 0 || cfg.ways == 0 || cfg.line_bytes == 0 {
        return Err("cache lines, ways and line size must be positive".into());
    }
    if !cfg.lines.is_multiple_of(cfg.ways) {
        return Err(format!("{} lines cannot be split into sets of {} ways", cfg.lines, cfg.ways));
    }
    if !cfg.line_bytes.is_multiple_of(ELEM_BYTES) {
        return Err(format!("a line of {} bytes does not hold a whole number of 4-byte floats", cfg.line_bytes));
    }
    Ok(())
}

/// The largest matrix the command line accepts (2^32 elements).
pub const MAX_ELEMENTS: u64 = 1 << 32;

/// Every element is a 4-byte `f32`.
pub const ELEM_BYTES: u64 = 4;

// ANCHOR: traversal
/// Which index the loop nest holds fixed in its outer loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Traversal {
    /// `for row { for col { .. } }`
    RowOuter,
    /// `for col { for row { .. } }`
    ColOuter,
}

/// Visits every element of a `rows x cols` matrix stored in `storage`, in
/// `traversal` order, and feeds each element's address to a fresh cache.
pub fn simulate(rows: u64, cols: u64, storage: StorageOrder, traversal: Traversal, cfg: CacheConfig) -> CacheStats {
    let mut cache = Cache::new(cfg);
    let (outer, inner) = match traversal {
        Traversal::RowOuter => (rows, cols),
        Traversal::ColOuter => (cols, rows),
    };
    for i in 0..outer {
        for j in 0..inner {
            let (r, c) = match traversal {
                Traversal::RowOuter => (i, j),
                Traversal::ColOuter => (j, i),
            };
            cache.access(storage.offset(rows, cols, r, c) * ELEM_BYTES);
        }
    }
    cache.stats()
}
// ANCHOR_END: traversal

impl Traversal {
    /// The traversal that walks `storage` front to back.
    pub fn natural_for(storage: StorageOrder) -> Self {
        match storage {
            StorageOrder::RowMajor => Traversal::RowOuter,
            StorageOrder::ColMajor => Traversal::ColOuter,
        }
    }

    /// The traversal that crosses `storage`.
    pub fn crossing(storage: StorageOrder) -> Self {
        match storage {
            StorageOrder::RowMajor => Traversal::ColOuter,
            StorageOrder::ColMajor => Traversal::RowOuter,
        }
    }
}

// ANCHOR: sum
/// Sums a matrix in the given order, reading through its own layout.
pub fn sum(m: &Matrix<f32>, traversal: Traversal) -> f64 {
    let mut total = 0.0;
    match traversal {
        Traversal::RowOuter => {
            for r in 0..m.rows() {
                for c in 0..m.cols() {
                    total += m.get(r, c) as f64;
                }
            }
        }
        Traversal::ColOuter => {
            for c in 0..m.cols() {
                for r in 0..m.rows() {
                    total += m.get(r, c) as f64;
                }
            }
        }
    }
    total
}
// ANCHOR_END: sum

/// The source's cache: four lines of 64 bytes, fully associative.
pub const SOURCE_CACHE: CacheConfig = CacheConfig::fully_associative(4, 64);

fn stats_line(s: CacheStats) -> String {
    format!(
        "{} hits, {} misses of {} accesses ({}% hit rate)",
        s.hits,
        s.misses,
        s.accesses(),
        report::pct(s.hits, s.accesses())
    )
}

fn describe_cache(cfg: &CacheConfig) -> String {
    let floats = cfg.line_bytes / ELEM_BYTES;
    let assoc = if cfg.ways == cfg.lines {
        "fully associative".to_string()
    } else {
        format!("{} sets x {} ways", cfg.sets(), cfg.ways)
    };
    format!("{}-line cache, {assoc} ({floats} floats per line, {} floats resident)", cfg.lines, cfg.lines * floats)
}

/// One experiment: the same matrix under both storage orders and both
/// traversals. `stats[storage][traversal]`, row-major and row-outer first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Experiment {
    pub rows: u64,
    pub cols: u64,
    pub cache: CacheConfig,
    pub stats: [[CacheStats; 2]; 2],
}

impl Experiment {
    pub fn run(rows: u64, cols: u64, cache: CacheConfig) -> Self {
        let mut stats = [[CacheStats::default(); 2]; 2];
        for (i, storage) in [StorageOrder::RowMajor, StorageOrder::ColMajor].into_iter().enumerate() {
            for (j, traversal) in [Traversal::RowOuter, Traversal::ColOuter].into_iter().enumerate() {
                stats[i][j] = simulate(rows, cols, storage, traversal, cache);
            }
        }
        Experiment { rows, cols, cache, stats }
    }

    pub fn get(&self, storage: StorageOrder, traversal: Traversal) -> CacheStats {
        let i = (storage == StorageOrder::ColMajor) as usize;
        let j = (traversal == Traversal::ColOuter) as usize;
        self.stats[i][j]
    }

    /// Following the storage (`true`) or crossing it (`false`).
    pub fn following(&self, storage: StorageOrder, follow: bool) -> CacheStats {
        let t = if follow { Traversal::natural_for(storage) } else { Traversal::crossing(storage) };
        self.get(storage, t)
    }
}

/// How a crossing traversal's stride compares with one cache line.
pub fn stride_story(stride_floats: u64, cfg: &CacheConfig) -> String {
    let per_line = cfg.line_bytes / ELEM_BYTES;
    if stride_floats >= per_line && stride_floats.is_multiple_of(per_line) {
        let lines = stride_floats / per_line;
        let cmp = if lines >= cfg.lines { "at least" } else { "less than" };
        format!("{stride_floats} floats = {lines} whole lines, {cmp} the {}-line capacity", cfg.lines)
    } else if stride_floats < per_line && per_line.is_multiple_of(stride_floats) {
        format!("{stride_floats} floats = 1/{} of a {per_line}-float line", per_line / stride_floats)
    } else {
        format!("{stride_floats} floats = {} of a {per_line}-float line", stride_floats as f64 / per_line as f64)
    }
}

/// The report for any shape and cache: four runs and what they show.
pub fn experiment_report(rows: u64, cols: u64, cache: CacheConfig) -> String {
    let e = Experiment::run(rows, cols, cache);
    let mut out = Report::new();
    out.line(format!("{rows}x{cols} matrix, {}", describe_cache(&cache)));
    for storage in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
        for follow in [true, false] {
            let t = if follow { Traversal::natural_for(storage) } else { Traversal::crossing(storage) };
            let what = if follow { "follows" } else { "crosses" };
            out.line(format!("  {storage} storage, {} ({what} it): {}", traversal_name(t), stats_line(e.get(storage, t))));
        }
    }
    let (rs, _) = StorageOrder::RowMajor.strides(rows, cols);
    let (_, cs) = StorageOrder::ColMajor.strides(rows, cols);
    out.line(format!("  row-major crossing stride: {}", stride_story(rs, &cache)));
    out.line(format!("  col-major crossing stride: {}", stride_story(cs, &cache)));
    out.into_string()
}

fn traversal_name(t: Traversal) -> &'static str {
    match t {
        Traversal::RowOuter => "row-outer",
        Traversal::ColOuter => "col-outer",
    }
}

/// The worked example: every figure of the source's K.1 output.
pub fn worked_example() -> String {
    let cfg = SOURCE_CACHE;
    let mut out = Report::new();
    out.heading("K.1: one row-major buffer, two traversal orders");
    out.blank();

    let case1 = Experiment::run(8, 64, cfg);
    let case2 = Experiment::run(32, 128, cfg);
    // Case 2's label is computed, so its shape ratio cannot drift from its shape.
    let case2_label = format!(
        "Case 2 (a 1:{} shape, {}x the elements)",
        case2.cols / case2.rows,
        (case2.rows * case2.cols) / (case1.rows * case1.cols)
    );
    for (label, e) in [("Case 1", &case1), (case2_label.as_str(), &case2)] {
        out.line(format!("{label}: {}x{} matrix, {}", e.rows, e.cols, describe_cache(&cfg)));
        let follow = e.get(StorageOrder::RowMajor, Traversal::RowOuter);
        let cross = e.get(StorageOrder::RowMajor, Traversal::ColOuter);
        out.line(format!("  row-outer, follows the storage: {}", stats_line(follow)));
        out.line(format!("  col-outer, crosses the storage: {}", stats_line(cross)));
        out.blank();
    }

    out.heading("Same data, same answer: only the cost differs");
    let m = Matrix::from_fn(8, 64, StorageOrder::RowMajor, |r, c| (r * 64 + c) as f32);
    let by_rows = sum(&m, Traversal::RowOuter);
    let by_cols = sum(&m, Traversal::ColOuter);
    out.line(format!("sum, row-outer: {by_rows:.1}"));
    out.line(format!("sum, col-outer: {by_cols:.1}"));
    out.line(format!("the two sums are equal: {}", report::verdict(by_rows == by_cols)));
    out.blank();

    out.heading("Column-major storage, the same 8x64 matrix");
    let cm_follow = case1.get(StorageOrder::ColMajor, Traversal::ColOuter);
    let cm_cross = case1.get(StorageOrder::ColMajor, Traversal::RowOuter);
    let rm_follow = case1.get(StorageOrder::RowMajor, Traversal::RowOuter);
    let rm_cross = case1.get(StorageOrder::RowMajor, Traversal::ColOuter);
    out.line(format!("col-outer, follows the storage: {}", stats_line(cm_follow)));
    out.line(format!("row-outer, crosses the storage: {}", stats_line(cm_cross)));
    out.line(format!(
        "following col-major scores the same {}% as following row-major: {}",
        report::pct(cm_follow.hits, cm_follow.accesses()),
        report::verdict(cm_follow == rm_follow)
    ));
    out.blank();

    out.heading("Why the two crossing cases are not mirror images");
    let (row_stride, _) = StorageOrder::RowMajor.strides(8, 64);
    let (_, col_stride) = StorageOrder::ColMajor.strides(8, 64);
    out.line(format!("row-major 8x64, crossing stride = cols = {}", stride_story(row_stride, &cfg)));
    out.line(format!("col-major 8x64, crossing stride = rows = {}", stride_story(col_stride, &cfg)));
    out.line(format!("row-major crossed: {} hits, {} misses (a stride of whole lines)", rm_cross.hits, rm_cross.misses));
    out.line(format!("col-major crossed: {} hits, {} misses (a stride inside one line)", cm_cross.hits, cm_cross.misses));
    out.line("how much crossing costs depends on the stride measured in lines,");
    out.line("not merely on whether the storage was crossed: both lose, by different amounts.");
    out.blank();

    out.heading("A square matrix mirrors exactly");
    let sq = Experiment::run(32, 32, cfg);
    for follow in [true, false] {
        for storage in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
            let s = sq.following(storage, follow);
            let how = if follow { "following" } else { "crossing" };
            writeln!(out, "{storage} 32x32, {how}:  {} hits, {} misses", s.hits, s.misses).unwrap();
        }
    }
    let mirrors = [true, false]
        .iter()
        .all(|&f| sq.following(StorageOrder::RowMajor, f) == sq.following(StorageOrder::ColMajor, f));
    out.line(format!("both layouts give identical counts in both directions: {}", report::verdict(mirrors)));
    out.into_string()
}

/// Every output the K.1 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![("k1_row_col_major.txt", worked_example())]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A plainly written fully associative LRU: a list, most recent first.
    fn reference_lru(lines: usize, addresses: impl Iterator<Item = u64>, line_bytes: u64) -> CacheStats {
        let mut list: Vec<u64> = Vec::new();
        let mut s = CacheStats::default();
        for a in addresses {
            let l = a / line_bytes;
            if let Some(p) = list.iter().position(|&x| x == l) {
                list.remove(p);
                s.hits += 1;
            } else {
                if list.len() == lines {
                    list.pop();
                }
                s.misses += 1;
            }
            list.insert(0, l);
        }
        s
    }

    #[test]
    fn source_figures() {
        let e = Experiment::run(8, 64, SOURCE_CACHE);
        assert_eq!(e.get(StorageOrder::RowMajor, Traversal::RowOuter), CacheStats { hits: 480, misses: 32 });
        assert_eq!(e.get(StorageOrder::RowMajor, Traversal::ColOuter), CacheStats { hits: 0, misses: 512 });
        assert_eq!(e.get(StorageOrder::ColMajor, Traversal::RowOuter), CacheStats { hits: 256, misses: 256 });
    }

    #[test]
    fn set_associativity_limits_placement() {
        // 2 sets x 1 way: lines 0 and 2 both map to set 0 and evict each other.
        let mut c = Cache::new(CacheConfig { lines: 2, line_bytes: 64, ways: 1 });
        for a in [0, 128, 0, 128, 64, 64] {
            c.access(a);
        }
        assert_eq!(c.stats(), CacheStats { hits: 1, misses: 5 });
    }

    #[test]
    fn validation_rejects_bad_shapes() {
        assert!(validate(0, 3, &SOURCE_CACHE).is_err());
        assert!(validate(1 << 20, 1 << 20, &SOURCE_CACHE).is_err());
        assert!(validate(4, 4, &CacheConfig { lines: 6, line_bytes: 64, ways: 4 }).is_err());
        assert!(validate(4, 4, &CacheConfig { lines: 4, line_bytes: 6, ways: 4 }).is_err());
        assert!(validate(4, 4, &SOURCE_CACHE).is_ok());
    }

    proptest! {
        /// With one set, the fast cache agrees with the plain list version
        /// on any access sequence.
        #[test]
        fn matches_reference_lru(lines in 1usize..9, addrs in proptest::collection::vec(0u64..2048, 0..400)) {
            let mut c = Cache::new(CacheConfig::fully_associative(lines as u64, 64));
            for &a in &addrs {
                c.access(a);
            }
            prop_assert_eq!(c.stats(), reference_lru(lines, addrs.iter().copied(), 64));
        }

        /// A set-associative cache is a set of independent LRU caches.
        #[test]
        fn sets_are_independent_lru_caches(sets in 1u64..5, ways in 1usize..5, addrs in proptest::collection::vec(0u64..4096, 0..400)) {
            let cfg = CacheConfig { lines: sets * ways as u64, line_bytes: 16, ways: ways as u64 };
            let mut c = Cache::new(cfg);
            for &a in &addrs {
                c.access(a);
            }
            let mut expect = CacheStats::default();
            for s in 0..sets {
                let mine = addrs.iter().copied().filter(|a| (a / 16) % sets == s);
                let r = reference_lru(ways, mine, 16);
                expect.hits += r.hits;
                expect.misses += r.misses;
            }
            prop_assert_eq!(c.stats(), expect);
        }

        /// Traversal order never changes the sum.
        #[test]
        fn sum_is_order_independent(rows in 1u64..20, cols in 1u64..20) {
            let m = Matrix::from_fn(rows, cols, StorageOrder::ColMajor, |r, c| (r * 31 + c) as f32);
            prop_assert_eq!(sum(&m, Traversal::RowOuter), sum(&m, Traversal::ColOuter));
        }
    }
}
