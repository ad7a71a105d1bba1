//! Timing the two traversals on the reader's own CPU.
//!
//! Wall-clock times vary from run to run and machine to machine, so they are
//! printed for the reader to look at and never asserted by a test. The
//! simulator's prediction is printed beside them for comparison.

use crate::{simulate, sum, CacheConfig, Traversal};
use ktrav::{Matrix, StorageOrder};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A typical level-1 data cache: 32 KiB, 64-byte lines, 8 ways.
pub const TYPICAL_L1: CacheConfig = CacheConfig { lines: 512, line_bytes: 64, ways: 8 };

/// Median time of `repeats` runs of `f`.
fn median_time(repeats: usize, mut f: impl FnMut() -> f64) -> Duration {
    let mut times: Vec<Duration> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// Times both traversals of an `n x n` row-major matrix and returns the
/// report (timings included, so never compare it byte for byte).
pub fn measure(n: u64, repeats: usize) -> String {
    let m = Matrix::from_fn(n, n, StorageOrder::RowMajor, |r, c| ((r * 7 + c) % 1000) as f32);
    let by_rows = median_time(repeats, || sum(black_box(&m), Traversal::RowOuter));
    let by_cols = median_time(repeats, || sum(black_box(&m), Traversal::ColOuter));
    let sim_rows = simulate(n, n, StorageOrder::RowMajor, Traversal::RowOuter, TYPICAL_L1);
    let sim_cols = simulate(n, n, StorageOrder::RowMajor, Traversal::ColOuter, TYPICAL_L1);
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
