//! `cargo bench -p k1_row_col_major`: how fast is the cache simulator?
//!
//! The goal: a 4096 x 4096 traversal (16.7 M accesses) simulated in well
//! under a second. Both traversals run in the same process, side by side,
//! beside a plain sum over the same number of elements, so the result reads
//! as a ratio as well as a time. Timings are printed, never asserted.

use k1_row_col_major::{simulate, Traversal, SOURCE_CACHE, TYPICAL_L1};
use ktrav::{Shape, StorageOrder};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn median(mut f: impl FnMut()) -> Duration {
    let times = (0..5).map(|_| {
        let s = Instant::now();
        f();
        s.elapsed()
    });
    ktrav::report::median(times.collect()).expect("five timings")
}

fn main() {
    let n = 4096u64;
    let data: Vec<f32> = (0..n * n).map(|i| (i % 97) as f32).collect();
    let baseline = median(|| {
        black_box(data.iter().map(|&x| x as f64).sum::<f64>());
    });
    println!("4096x4096 = {} accesses per traversal; plain sum of the same floats: {:.1} ms", n * n, baseline.as_secs_f64() * 1e3);
    for (name, cfg) in [("source 4-line fully associative", SOURCE_CACHE), ("512-line 8-way", TYPICAL_L1)] {
        for t in [Traversal::RowOuter, Traversal::ColOuter] {
            let d = median(|| {
                black_box(simulate(black_box(Shape::new(n, n)), StorageOrder::RowMajor, t, cfg));
            });
            let verdict = if d < Duration::from_millis(500) { "under 0.5 s" } else { "OVER 0.5 s" };
            println!(
                "{name:>32}, {t:?}: {:7.1} ms ({:5.1}x the plain sum) {verdict}",
                d.as_secs_f64() * 1e3,
                d.as_secs_f64() / baseline.as_secs_f64()
            );
        }
    }
}
