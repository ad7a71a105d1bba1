//! Appendix K.1: row-major versus column-major. Storage is not traversal.
//!
//! Storage order decides where an element lives; the loop nest decides the
//! order in which elements are visited. This chapter keeps the data fixed,
//! varies the visiting order, and counts what a cache makes of each order
//! with a deterministic simulator, so the cost is a count, not a timing.
//!
//! The file reads in the order every chapter uses: the CPU reference (here
//! the whole subject: a cache simulator and the two loop nests), then the
//! exploration and the report. K.1 has no kernel, so it has no kernel twins
//! and no launch plan.

use anyhow::{bail, Result};
use ktrav::{Matrix, Shape, StorageOrder};
use ktrav_term::progress::ProgressBar;
use ktrav_term::report::{self, Report};
use std::hint::black_box;
use std::time::{Duration, Instant};

pub mod exercises;
pub mod figures;
pub mod values;

// --- 1. CPU reference -------------------------------------------------------

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
///
/// Each set is a ring of `ways` slots read from its head: the most
/// recently used line first, the least recently used just behind the head.
/// A miss steps the head back one slot, onto the line to evict, and writes
/// the new line there; nothing else moves. A hit moves only the lines more
/// recent than the one hit.
pub struct Cache {
    cfg: CacheConfig,
    sets: u64,
    /// `sets - 1` when the number of sets is a power of two, as in real
    /// caches: then a line's set is its low bits.
    set_mask: Option<u64>,
    /// `sets * ways` line numbers, one set after another; a slot not yet
    /// filled holds `NO_LINE`, which matches no line.
    slots: Vec<u64>,
    /// Each set's head: the slot of its most recently used line.
    heads: Vec<usize>,
    /// The line touched last: always the most recent of its set, so a
    /// repeat touch is a hit with nothing to reorder.
    last: u64,
    touches: u64,
    misses: u64,
}

/// No line: addresses fit in a `u64` and lines hold at least 4 bytes, so
/// no real line number reaches it.
const NO_LINE: u64 = u64::MAX;

impl Cache {
    /// An empty cache. The configuration must already be valid
    /// (see [`validate`]).
    pub fn new(cfg: CacheConfig) -> Self {
        let (slots, heads) = (vec![NO_LINE; cfg.lines as usize], vec![0; cfg.sets() as usize]);
        let set_mask = cfg.sets().is_power_of_two().then(|| cfg.sets() - 1);
        Cache { cfg, sets: cfg.sets(), set_mask, slots, heads, last: NO_LINE, touches: 0, misses: 0 }
    }

    /// Touches the byte at `address`; returns whether it was a hit.
    pub fn access(&mut self, address: u64) -> bool {
        self.touch(address / self.cfg.line_bytes)
    }

    /// Touches line number `line` (`address / line_bytes`); returns
    /// whether it was a hit.
    #[inline]
    fn touch(&mut self, line: u64) -> bool {
        self.touches += 1;
        if line == self.last {
            return true;
        }
        self.last = line;
        let hit = self.move_to_front(line);
        self.misses += !hit as u64;
        hit
    }

    /// Makes `line` the most recently used of its set; returns whether
    /// the set held it. (Inlined into the traversal's loop, so that the
    /// cache's fields stay in registers there.)
    #[inline(always)]
    fn move_to_front(&mut self, line: u64) -> bool {
        let ways = self.cfg.ways as usize;
        let set_index = self.set_of(line);
        let set = &mut self.slots[set_index * ways..][..ways];
        let head = &mut self.heads[set_index];
        // One slot back around the ring.
        let before = |i: usize| if i == 0 { ways - 1 } else { i - 1 };
        // A set fills from its last slot backwards, so until its first slot
        // is taken its lines are the slots from its head on.
        let found = if set[0] == NO_LINE {
            set[*head..].iter().position(|&l| l == line).map(|at| *head + at)
        } else {
            set.iter().position(|&l| l == line)
        };
        match found {
            // A miss: the slot just behind the head holds the least
            // recently used line (or nothing yet). The new line replaces
            // it and becomes the head; the rest keep their order.
            None => {
                *head = before(*head);
                set[*head] = line;
                false
            }
            // A hit: the lines from the head up to this one move one slot
            // further from the head, and this one takes the head's slot.
            Some(mut at) => {
                while at != *head {
                    set[at] = set[before(at)];
                    at = before(at);
                }
                set[at] = line;
                true
            }
        }
    }

    /// The set `line` must live in: `line % sets`.
    fn set_of(&self, line: u64) -> usize {
        let set = match self.set_mask {
            Some(mask) => line & mask,
            None => line % self.sets,
        };
        set as usize
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats { hits: self.touches - self.misses, misses: self.misses }
    }
}
// ANCHOR_END: cache

/// Every element is a 4-byte `f32`.
pub const ELEM_BYTES: u64 = 4;

// ANCHOR: traversal
/// The index the outer loop runs over (the inner loop takes the other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Traversal {
    /// `for row { for col { .. } }`
    RowOuter,
    /// `for col { for row { .. } }`
    ColOuter,
}

/// The hit and miss counts of one traversal of a `shape` matrix laid out as
/// `storage`, starting from an empty cache: each element's line goes to
/// the cache (`Cache::touch`) in `traversal` order.
pub fn simulate(shape: Shape, storage: StorageOrder, traversal: Traversal, cfg: CacheConfig) -> CacheStats {
    simulate_counted(shape, storage, traversal, cfg, &ProgressBar::hidden())
}

/// [`simulate`], advancing `progress` by every access made.
fn simulate_counted(
    shape: Shape,
    storage: StorageOrder,
    traversal: Traversal,
    cfg: CacheConfig,
    progress: &ProgressBar,
) -> CacheStats {
    let mut cache = Cache::new(cfg);
    let (row_stride, col_stride) = storage.strides(shape);
    let (outer, outer_stride, inner, inner_stride) = match traversal {
        Traversal::RowOuter => (shape.rows, row_stride, shape.cols, col_stride),
        Traversal::ColOuter => (shape.cols, col_stride, shape.rows, row_stride),
    };
    // Each inner step moves the address by the same number of bytes: some
    // whole lines and a remainder. Carrying the position within the line
    // gives each address's line number without dividing per access.
    let line_bytes = cfg.line_bytes;
    let step = inner_stride * ELEM_BYTES;
    let (step_lines, step_bytes) = (step / line_bytes, step % line_bytes);
    for i in 0..outer {
        let start = i * outer_stride * ELEM_BYTES;
        let (mut line, mut byte) = (start / line_bytes, start % line_bytes);
        for _ in 0..inner {
            cache.touch(line);
            line += step_lines;
            // A step of whole lines (the usual crossing stride) has nothing to carry.
            if step_bytes > 0 {
                byte += step_bytes;
                if byte >= line_bytes {
                    byte -= line_bytes;
                    line += 1;
                }
            }
        }
        progress.inc(inner);
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

// --- 2. Kernel twins, 3. launch plan: none, K.1 runs on the CPU only ---------

// --- 4. Exploration ---------------------------------------------------------

/// The source's cache: four lines of 64 bytes, fully associative.
pub const SOURCE_CACHE: CacheConfig = CacheConfig::fully_associative(4, 64);

/// The side of the square matrix `cargo bench -p k1_row_col_major` times
/// both traversals of, beside the source's own simulator.
pub const BENCH_SIDE: u64 = 4096;

/// The largest matrix a custom experiment accepts (2^30 elements); each of
/// its four runs makes one access per element, about 30 s in all.
pub const MAX_ELEMENTS: u64 = 1 << 30;

/// The most cache slots a custom experiment may search: each access looks
/// through at most `ways` of them, so this bounds the work at about a
/// minute, and a typical run takes far less.
pub const MAX_SLOT_CHECKS: u64 = 1 << 36;

/// Why a cache or matrix shape cannot be simulated.
pub fn validate(shape: Shape, cfg: &CacheConfig) -> Result<()> {
    if shape.is_empty() {
        bail!("matrix dimensions must be positive");
    }
    if shape.checked_elements().is_none_or(|n| n > MAX_ELEMENTS) {
        bail!("a {shape} matrix has more than {MAX_ELEMENTS} elements, the simulator's limit");
    }
    if cfg.lines == 0 || cfg.ways == 0 || cfg.line_bytes == 0 {
        bail!("cache lines, ways and line size must be positive");
    }
    if !cfg.lines.is_multiple_of(cfg.ways) {
        bail!("{} lines cannot be split into sets of {} ways", cfg.lines, cfg.ways);
    }
    if !cfg.line_bytes.is_multiple_of(ELEM_BYTES) {
        bail!("a line of {} bytes does not hold a whole number of 4-byte floats", cfg.line_bytes);
    }
    Ok(())
}

/// Accesses an experiment makes: four runs over every element.
pub fn accesses(shape: Shape) -> Option<u64> {
    shape.checked_elements()?.checked_mul(4)
}

/// The most cache slots an experiment can search (each access looks
/// through at most one set's `ways` slots).
pub fn slot_checks(shape: Shape, cfg: &CacheConfig) -> Option<u64> {
    accesses(shape)?.checked_mul(cfg.ways)
}

/// One experiment: the same matrix under both storage orders and both
/// traversals. `stats[storage][traversal]`, row-major and row-outer first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Experiment {
    pub shape: Shape,
    pub cache: CacheConfig,
    pub stats: [[CacheStats; 2]; 2],
}

impl Experiment {
    pub fn run(shape: Shape, cache: CacheConfig) -> Self {
        Self::run_counted(shape, cache, &ProgressBar::hidden())
    }

    /// [`Experiment::run`], advancing `progress` by every access made.
    fn run_counted(shape: Shape, cache: CacheConfig, progress: &ProgressBar) -> Self {
        let mut stats = [[CacheStats::default(); 2]; 2];
        for (i, storage) in [StorageOrder::RowMajor, StorageOrder::ColMajor].into_iter().enumerate() {
            for (j, traversal) in [Traversal::RowOuter, Traversal::ColOuter].into_iter().enumerate() {
                stats[i][j] = simulate_counted(shape, storage, traversal, cache, progress);
            }
        }
        Experiment { shape, cache, stats }
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

/// A typical level-1 data cache: 32 KiB, 64-byte lines, 8 ways.
pub const TYPICAL_L1: CacheConfig = CacheConfig { lines: 512, line_bytes: 64, ways: 8 };

/// The largest matrix side `--measure-size` accepts: a 32768 x 32768
/// matrix of floats takes 4 GiB.
pub const MAX_MEASURE_SIZE: u64 = 1 << 15;

/// Median wall-clock time of `repeats` runs of `f`, each run advancing
/// `progress` by one.
fn median_time(repeats: usize, progress: &ProgressBar, mut f: impl FnMut() -> f64) -> Duration {
    let times = (0..repeats.max(1)).map(|_| {
        let start = Instant::now();
        black_box(f());
        progress.inc(1);
        start.elapsed()
    });
    report::median(times.collect()).expect("at least one run")
}

/// Times both traversals of an `n x n` row-major matrix on this CPU and
/// returns the report. Wall-clock times change with every run and every
/// machine, so they are printed for the reader and never asserted; the
/// simulator's prediction is printed beside them.
pub fn measure(n: u64, repeats: usize) -> String {
    let shape = Shape::new(n, n);
    // About a second of work: a 4096 x 4096 matrix summed ten times.
    let small = if n >= 4096 { 0 } else { u64::MAX };
    let progress = ktrav_term::progress::bar("timing both traversals", 2 * repeats as u64, small);
    let m = Matrix::from_fn(shape, StorageOrder::RowMajor, |r, c| ((r * 7 + c) % 1000) as f32);
    let by_rows = median_time(repeats, &progress, || sum(black_box(&m), Traversal::RowOuter));
    let by_cols = median_time(repeats, &progress, || sum(black_box(&m), Traversal::ColOuter));
    progress.finish_and_clear();
    let sim_rows = simulate(shape, StorageOrder::RowMajor, Traversal::RowOuter, TYPICAL_L1);
    let sim_cols = simulate(shape, StorageOrder::RowMajor, Traversal::ColOuter, TYPICAL_L1);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "measured on this CPU, {n}x{n} row-major floats, median of {repeats} runs (timings vary; never asserted):\n\
         \x20 row-outer sum: {:.2} ms\n\
         \x20 col-outer sum: {:.2} ms\n\
         \x20 col-outer / row-outer time: {:.1}x\n\
         simulated {}-line, {}-way, {}-byte-line cache on the same traversals:\n\
         \x20 row-outer misses: {}\n\
         \x20 col-outer misses: {}\n\
         \x20 col-outer / row-outer misses: {:.1}x\n\
         (a real CPU also has prefetchers and further cache levels, so the two ratios need not agree)\n",
        ms(by_rows),
        ms(by_cols),
        by_cols.as_secs_f64() / by_rows.as_secs_f64(),
        TYPICAL_L1.lines,
        TYPICAL_L1.ways,
        TYPICAL_L1.line_bytes,
        sim_rows.misses,
        sim_cols.misses,
        sim_cols.misses as f64 / sim_rows.misses as f64,
    )
}

// --- 5. Report --------------------------------------------------------------

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
    format!("{} lines of {floats} floats, {assoc}: {} floats fit at once", cfg.lines, cfg.lines * floats)
}

/// A stride in floats and in the lines of `cfg`: `64 floats (4 lines)`,
/// `8 floats (1/2 line)`, `24 floats (1.5 lines)`.
pub fn stride_story(stride_floats: u64, cfg: &CacheConfig) -> String {
    let per_line = cfg.line_bytes / ELEM_BYTES;
    let floats = if stride_floats == 1 { "float" } else { "floats" };
    let lines = if stride_floats > per_line { "lines" } else { "line" };
    format!("{stride_floats} {floats} ({} {lines})", in_lines(stride_floats, per_line))
}

/// The report for any shape and cache: four runs and what they show. Call
/// [`validate`] first; a large run shows its progress on stderr.
pub fn experiment_report(shape: Shape, cache: CacheConfig) -> String {
    // About a second of simulation: 2^27 accesses.
    let progress =
        ktrav_term::progress::bar("simulating four traversals", accesses(shape).unwrap_or(u64::MAX), 1 << 27);
    let e = Experiment::run_counted(shape, cache, &progress);
    progress.finish_and_clear();
    let mut out = Report::new();
    out.line(format!("{shape} matrix, {}", describe_cache(&cache)));
    for storage in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
        for follow in [true, false] {
            let t = if follow { Traversal::natural_for(storage) } else { Traversal::crossing(storage) };
            let what = if follow { "follows" } else { "crosses" };
            out.line(format!(
                "  {storage} storage, {} ({what} it): {}",
                traversal_name(t),
                stats_line(e.get(storage, t))
            ));
        }
    }
    let (rs, _) = StorageOrder::RowMajor.strides(shape);
    let (_, cs) = StorageOrder::ColMajor.strides(shape);
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

/// The two crossings of `shape` under `cfg` as a table: where the inner
/// loop walks, its step, and the lines one pass of it touches.
fn crossing_table(out: &mut Report, shape: Shape, cfg: CacheConfig) {
    out.heading(&format!("Crossing {shape}: step and pass, in lines"));
    let mut rows =
        vec![["layout", "inner loop", "step", "lines per pass", "hits", "misses"].map(String::from).to_vec()];
    for storage in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
        let c = Crossing::run(shape, storage, cfg);
        let walk = match Traversal::crossing(storage) {
            Traversal::ColOuter => "down a column",
            Traversal::RowOuter => "along a row",
        };
        rows.push(vec![
            storage.to_string(),
            walk.to_string(),
            stride_story(c.stride_floats, &cfg),
            c.pass_lines.to_string(),
            c.stats.hits.to_string(),
            c.stats.misses.to_string(),
        ]);
    }
    out.table(&rows);
    out.line(format!("the cache holds {} lines", cfg.lines));
}

/// The worked example: every figure of the source's K.1 output, as one
/// table of counts under the source's cache, the two 8x64 crossings'
/// steps and passes, and the checks that tie the rows together.
pub fn worked_example() -> String {
    let cfg = SOURCE_CACHE;
    let mut out = Report::new();
    out.heading("K.1: each layout against each loop order, in a simulated cache");
    out.line(format!("cache: {}", describe_cache(&cfg)));
    out.blank();

    let wide = Experiment::run(Shape::new(8, 64), cfg);
    let larger = Experiment::run(Shape::new(32, 128), cfg);
    let square = Experiment::run(Shape::new(32, 32), cfg);
    // Which runs the table shows, in order: the source's two row-major
    // cases, the 8x64 matrix stored by columns, then the square one.
    let runs = [
        (&wide, StorageOrder::RowMajor, true),
        (&wide, StorageOrder::RowMajor, false),
        (&larger, StorageOrder::RowMajor, true),
        (&larger, StorageOrder::RowMajor, false),
        (&wide, StorageOrder::ColMajor, true),
        (&wide, StorageOrder::ColMajor, false),
        (&square, StorageOrder::RowMajor, true),
        (&square, StorageOrder::ColMajor, true),
        (&square, StorageOrder::RowMajor, false),
        (&square, StorageOrder::ColMajor, false),
    ];
    out.heading("Counts per run");
    let mut rows = vec![["matrix", "layout", "loop order", "the loop", "hits", "misses", "accesses", "hit rate"]
        .map(String::from)
        .to_vec()];
    for (e, storage, follow) in runs {
        let t = if follow { Traversal::natural_for(storage) } else { Traversal::crossing(storage) };
        let s = e.get(storage, t);
        rows.push(vec![
            e.shape.to_string(),
            storage.to_string(),
            traversal_name(t).to_string(),
            if follow { "follows" } else { "crosses" }.to_string(),
            s.hits.to_string(),
            s.misses.to_string(),
            s.accesses().to_string(),
            format!("{}%", report::pct(s.hits, s.accesses())),
        ]);
    }
    out.table(&rows);
    // The shape notes are computed, so they cannot drift from the shapes.
    let ratio = |s: Shape| format!("1:{}", s.cols / s.rows);
    out.line(format!(
        "{} is {}; {} is {}, with {}x the elements",
        wide.shape,
        ratio(wide.shape),
        larger.shape,
        ratio(larger.shape),
        larger.shape.elements() / wide.shape.elements()
    ));
    out.blank();

    crossing_table(&mut out, wide.shape, cfg);
    out.blank();

    out.heading("Checks");
    let m = Matrix::from_fn(wide.shape, StorageOrder::RowMajor, |r, c| (r * wide.shape.cols + c) as f32);
    let by_rows = sum(&m, Traversal::RowOuter);
    let by_cols = sum(&m, Traversal::ColOuter);
    let n = wide.shape.elements();
    out.line(format!("sum of the {n} values of {}, row-outer: {by_rows:.1}", wide.shape));
    out.line(format!("sum of the {n} values of {}, col-outer: {by_cols:.1}", wide.shape));
    out.line(format!("the loop order leaves the sum unchanged: {}", report::verdict(by_rows == by_cols)));
    let cm_follow = wide.following(StorageOrder::ColMajor, true);
    let rm_follow = wide.following(StorageOrder::RowMajor, true);
    out.line(format!(
        "{}, following: col-major counts what row-major counts ({} hits, {} misses): {}",
        wide.shape,
        cm_follow.hits,
        cm_follow.misses,
        report::verdict(cm_follow == rm_follow)
    ));
    let mirrors = [true, false]
        .iter()
        .all(|&f| square.following(StorageOrder::RowMajor, f) == square.following(StorageOrder::ColMajor, f));
    out.line(format!(
        "{}: the two layouts count the same, following and crossing: {}",
        square.shape,
        report::verdict(mirrors)
    ));
    out.into_string()
}

// ANCHOR: crossing
/// One crossing run of the mirror table: the layout crossed, the jump
/// between consecutive accesses, the distinct lines one pass of the inner
/// loop touches, and what the simulator counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossing {
    pub storage: StorageOrder,
    /// The inner loop's stride, in floats.
    pub stride_floats: u64,
    /// Distinct cache lines one pass of the inner loop touches.
    pub pass_lines: u64,
    pub stats: CacheStats,
}

impl Crossing {
    /// Crossing `storage` on `shape` under `cache`, simulated.
    pub fn run(shape: Shape, storage: StorageOrder, cache: CacheConfig) -> Self {
        let traversal = Traversal::crossing(storage);
        let (row_stride, col_stride) = storage.strides(shape);
        let (stride_floats, inner) = match traversal {
            Traversal::RowOuter => (col_stride, shape.cols),
            Traversal::ColOuter => (row_stride, shape.rows),
        };
        let lines: std::collections::BTreeSet<u64> =
            (0..inner).map(|i| i * stride_floats * ELEM_BYTES / cache.line_bytes).collect();
        let stats = simulate(shape, storage, traversal, cache);
        Crossing { storage, stride_floats, pass_lines: lines.len() as u64, stats }
    }

    /// What the rule predicts for a fully associative LRU cache whose lines
    /// hold more than one float: a crossing hits only if consecutive
    /// accesses share a line (a stride under one line) or one pass's lines
    /// all stay in the cache until the next pass comes back for them. With
    /// sets, lines that share a set evict each other whatever the pass
    /// length, so the rule can be wrong either way.
    pub fn rule_says_hits(&self, cache: CacheConfig) -> bool {
        self.stride_floats * ELEM_BYTES < cache.line_bytes || self.pass_lines <= cache.lines
    }
}

// ANCHOR_END: crossing

/// The shapes and caches of the mirror table: the worked example, the
/// square, the non-square matrix that still mirrors, and one whose crossing
/// passes fit a larger cache in one layout only.
pub const MIRROR_CASES: [(Shape, CacheConfig); 4] = [
    (Shape::new(8, 64), SOURCE_CACHE),
    (Shape::new(32, 32), SOURCE_CACHE),
    (Shape::new(32, 64), SOURCE_CACHE),
    (Shape::new(16, 64), CacheConfig::fully_associative(16, 64)),
];

/// A stride in floats, in lines of `line_floats`: `4`, `1/2`, `1.5`.
fn in_lines(floats: u64, line_floats: u64) -> String {
    if floats.is_multiple_of(line_floats) {
        (floats / line_floats).to_string()
    } else if line_floats.is_multiple_of(floats) {
        format!("1/{}", line_floats / floats)
    } else {
        format!("{}", floats as f64 / line_floats as f64)
    }
}

/// Both crossings of every mirror case: the case's shape and cache, and
/// the row-major then the column-major crossing.
fn mirror_runs() -> Vec<(Shape, CacheConfig, [Crossing; 2])> {
    MIRROR_CASES
        .iter()
        .map(|&(shape, cache)| {
            (shape, cache, [StorageOrder::RowMajor, StorageOrder::ColMajor].map(|s| Crossing::run(shape, s, cache)))
        })
        .collect()
}

/// The rule predicts every crossing: hits exactly where its stride is
/// under a line or its pass fits the cache.
fn rule_predicts_every_crossing(runs: &[(Shape, CacheConfig, [Crossing; 2])]) -> bool {
    runs.iter().all(|(_, cache, crossings)| crossings.iter().all(|c| c.rule_says_hits(*cache) == (c.stats.hits > 0)))
}

/// The mirror rule as a table: for each case, both crossings, with the
/// stride and pass length in lines beside the simulator's hits, and whether
/// the rule predicts every row.
pub fn mirror_report() -> String {
    let runs = mirror_runs();
    let mut out = Report::new();
    out.heading("When do the two crossings mirror? Stride and pass length, in lines");
    out.line(format!(
        "{:<6} {:<9} {:<10} {:>6} {:>5}  {:<13} {}",
        "shape", "cache", "crossing", "stride", "pass", "hits", "the pair"
    ));
    for (shape, cache, crossings) in &runs {
        let line_floats = cache.line_bytes / ELEM_BYTES;
        let mirrored = crossings[0].stats == crossings[1].stats;
        for (i, c) in crossings.iter().enumerate() {
            let (name, lines, verdict) = match i {
                0 => (shape.to_string(), format!("{} lines", cache.lines), if mirrored { "mirror" } else { "differ" }),
                _ => (String::new(), String::new(), ""),
            };
            out.line(
                format!(
                    "{name:<6} {lines:<9} {:<10} {:>6} {:>5}  {:<13} {verdict}",
                    c.storage.to_string(),
                    in_lines(c.stride_floats, line_floats),
                    c.pass_lines,
                    format!("{} of {}", c.stats.hits, c.stats.accesses()),
                )
                .trim_end(),
            );
        }
    }
    out.line("stride: the jump between consecutive accesses; pass: the distinct lines one run of the");
    out.line("inner loop touches; both in cache lines");
    out.line(format!(
        "a crossing hits only when its stride is under a line or its pass fits in the cache: {}",
        report::verdict(rule_predicts_every_crossing(&runs))
    ));
    out.into_string()
}

/// Every output the K.1 page shows, by file name under `book/outputs/`.
pub fn shown_outputs() -> Vec<(&'static str, String)> {
    vec![
        ("k1_row_col_major.txt", worked_example()),
        ("k1_row_col_major-mirror.txt", mirror_report()),
        ("k1_row_col_major-exercise.txt", exercises::starter_report()),
    ]
}

/// K.1 as one value: what `main`, the root runner and the book's tests read.
pub const CHAPTER: ktrav::Chapter = ktrav::Chapter {
    id: "k1_row_col_major",
    section: "K.1",
    title: "Storage order and visiting order",
    report: || vec![worked_example(), mirror_report()],
    shown_outputs,
    figures: figures::figures,
    kernel_source: None,
    values: values::values,
    gpu: None,
    exercises: &[],
    sim_exercises: exercises::SIM_EXERCISES,
    versions: &[],
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The mirror table's two conditions predict each crossing, and its
    /// last case has whole-line strides in both layouts yet different hits,
    /// because only row-major's pass fits the 16-line cache.
    #[test]
    fn stride_and_pass_predict_every_crossing() {
        for (shape, cache) in MIRROR_CASES {
            for storage in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
                let c = Crossing::run(shape, storage, cache);
                assert_eq!(c.rule_says_hits(cache), c.stats.hits > 0, "{shape} {storage}: {c:?}");
            }
        }
        assert!(rule_predicts_every_crossing(&mirror_runs()));
        let (shape, cache) = MIRROR_CASES[3];
        let rm = Crossing::run(shape, StorageOrder::RowMajor, cache);
        let cm = Crossing::run(shape, StorageOrder::ColMajor, cache);
        assert_eq!((rm.stride_floats, rm.pass_lines, rm.stats.hits), (64, 16, 960));
        assert_eq!((cm.stride_floats, cm.pass_lines, cm.stats.hits), (16, 64, 0));
        let text = report::plain(&mirror_report());
        assert!(text.ends_with(": true\n"), "{text}");
    }

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

    /// A plainly written set-associative LRU: one list per set, most recent
    /// first. Slow and obviously right, to hold the fast [`Cache`] to.
    struct ReferenceCache {
        cfg: CacheConfig,
        sets: Vec<Vec<u64>>,
    }

    impl ReferenceCache {
        fn new(cfg: CacheConfig) -> Self {
            ReferenceCache { cfg, sets: vec![Vec::new(); cfg.sets() as usize] }
        }

        fn access(&mut self, address: u64) -> bool {
            let line = address / self.cfg.line_bytes;
            let set = &mut self.sets[(line % self.cfg.sets()) as usize];
            let hit = match set.iter().position(|&l| l == line) {
                Some(p) => {
                    set.remove(p);
                    true
                }
                None => {
                    set.truncate(self.cfg.ways as usize - 1);
                    false
                }
            };
            set.insert(0, line);
            hit
        }
    }

    /// The hits and misses of `simulate`, replayed element by element
    /// through the reference cache in the loop nest's own order.
    fn reference_simulate(shape: Shape, storage: StorageOrder, traversal: Traversal, cfg: CacheConfig) -> CacheStats {
        let mut cache = ReferenceCache::new(cfg);
        let mut stats = CacheStats::default();
        let mut visit = |r, c| {
            if cache.access(storage.offset(shape, r, c) * ELEM_BYTES) {
                stats.hits += 1;
            } else {
                stats.misses += 1;
            }
        };
        match traversal {
            Traversal::RowOuter => (0..shape.rows).for_each(|r| (0..shape.cols).for_each(|c| visit(r, c))),
            Traversal::ColOuter => (0..shape.cols).for_each(|c| (0..shape.rows).for_each(|r| visit(r, c))),
        }
        stats
    }

    /// Any valid cache: 1 to 6 sets of 1 to 6 ways, lines of 1 to 20
    /// floats (so line sizes that are not powers of two, and strides that
    /// are not whole lines, come up too).
    fn any_cache() -> impl Strategy<Value = CacheConfig> {
        (1u64..7, 1u64..7, 1u64..21).prop_map(|(sets, ways, floats)| CacheConfig {
            lines: sets * ways,
            line_bytes: floats * ELEM_BYTES,
            ways,
        })
    }

    fn any_storage() -> impl Strategy<Value = StorageOrder> {
        prop_oneof![Just(StorageOrder::RowMajor), Just(StorageOrder::ColMajor)]
    }

    fn any_traversal() -> impl Strategy<Value = Traversal> {
        prop_oneof![Just(Traversal::RowOuter), Just(Traversal::ColOuter)]
    }

    #[test]
    fn simulate_matches_the_reference_on_the_chapter_caches() {
        let odd = CacheConfig { lines: 12, line_bytes: 48, ways: 4 }; // 3 sets, 12-float lines
        let two_way = CacheConfig { lines: 8, line_bytes: 64, ways: 2 };
        // 64 lines fill up and wrap around on the larger shapes; 4096 never fill.
        let (wraps, never_full) = (CacheConfig::fully_associative(64, 64), CacheConfig::fully_associative(4096, 64));
        for cfg in [SOURCE_CACHE, TYPICAL_L1, odd, two_way, wraps, never_full] {
            for shape in
                [Shape::new(8, 64), Shape::new(33, 65), Shape::new(100, 37), Shape::new(1, 500), Shape::new(300, 1)]
            {
                for storage in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
                    for t in [Traversal::RowOuter, Traversal::ColOuter] {
                        let fast = simulate(shape, storage, t, cfg);
                        assert_eq!(fast, reference_simulate(shape, storage, t, cfg), "{shape} {storage} {t:?} {cfg:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn source_figures() {
        let e = Experiment::run(Shape::new(8, 64), SOURCE_CACHE);
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
        let four = Shape::new(4, 4);
        assert!(validate(Shape::new(0, 3), &SOURCE_CACHE).is_err());
        assert!(validate(Shape::new(1 << 20, 1 << 20), &SOURCE_CACHE).is_err());
        assert!(validate(four, &CacheConfig { lines: 6, line_bytes: 64, ways: 4 }).is_err());
        assert!(validate(four, &CacheConfig { lines: 4, line_bytes: 6, ways: 4 }).is_err());
        assert!(validate(four, &SOURCE_CACHE).is_ok());
        assert_eq!(slot_checks(Shape::new(1 << 32, 1 << 32), &SOURCE_CACHE), None);
        assert_eq!(slot_checks(Shape::new(8, 64), &SOURCE_CACHE), Some(4 * 512 * 4));
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

        /// The fast simulator counts exactly what the reference counts, for
        /// any shape, storage, traversal and cache.
        #[test]
        fn simulate_matches_the_reference(
            rows in 1u64..40,
            cols in 1u64..40,
            storage in any_storage(),
            traversal in any_traversal(),
            cfg in any_cache(),
        ) {
            let fast = simulate(Shape::new(rows, cols), storage, traversal, cfg);
            prop_assert_eq!(fast, reference_simulate(Shape::new(rows, cols), storage, traversal, cfg));
        }

        /// Access by access, the fast cache and the reference agree on every
        /// hit and miss, on sequences that repeat lines, come back to them
        /// and wander off, so the repeat fast path, the hits deep in a set
        /// and the evictions are all exercised.
        #[test]
        fn cache_agrees_with_the_reference_access_by_access(
            cfg in any_cache(),
            runs in proptest::collection::vec((0u64..40, 1usize..4), 0..300),
        ) {
            let (mut fast, mut plain) = (Cache::new(cfg), ReferenceCache::new(cfg));
            let mut expect = CacheStats::default();
            for (i, &(line, repeats)) in runs.iter().enumerate() {
                for k in 0..repeats {
                    // A different byte of the same line each time.
                    let address = line * cfg.line_bytes + (k as u64 * ELEM_BYTES) % cfg.line_bytes;
                    let hit = plain.access(address);
                    prop_assert_eq!(fast.access(address), hit, "access {} of run {}", k, i);
                    if hit { expect.hits += 1 } else { expect.misses += 1 }
                }
            }
            prop_assert_eq!(fast.stats(), expect);
        }

        /// Traversal order never changes the sum.
        #[test]
        fn sum_is_order_independent(rows in 1u64..20, cols in 1u64..20) {
            let m = Matrix::from_fn(Shape::new(rows, cols), StorageOrder::ColMajor, |r, c| (r * 31 + c) as f32);
            prop_assert_eq!(sum(&m, Traversal::RowOuter), sum(&m, Traversal::ColOuter));
        }
    }
}
