//! The K.1 lab exercise `predict-misses`, a CPU exercise: predict, before
//! running anything, how many of a traversal's accesses hit and miss a
//! small fully associative LRU cache, then check the prediction against
//! the cache simulator ([`crate::simulate`]) on a battery of shapes, both
//! storage orders, both traversals and three cache sizes.
//!
//! The battery keeps every row (of a row-major matrix; column of a
//! column-major one) a whole number of cache lines long, so each
//! contiguous run starts on a line boundary and a closed form is exact.
//! `cargo test -p k1_row_col_major exercises` checks the solution and
//! rejects every wrong prediction; `cargo run -p k1_row_col_major --
//! sim-check predict-misses` checks the student's own, in
//! `exercises/k1_row_col_major/predict_misses.rs`.

use crate::{simulate, CacheConfig, CacheStats, Traversal, ELEM_BYTES};
use ktrav::lab::simcheck::{SimExercise, SimReport};
use ktrav::{Shape, StorageOrder};
use ktrav_term::report::{self, Report};

/// A prediction: (hits, misses) of one traversal, from the shape alone.
pub type Predict = fn(Shape, StorageOrder, Traversal, CacheConfig) -> CacheStats;

/// The crate's solution, in the form of the student's file.
#[path = "solutions/predict_misses.rs"]
pub mod solution;

/// The student's own file: only `sim-check` runs it, never the crate's
/// tests.
#[path = "../../../exercises/k1_row_col_major/predict_misses.rs"]
pub mod student;

/// How many differing cases a report prints before its result line.
pub const SHOWN_CASES: usize = 3;

/// The exercise on the simulator track, the `Chapter` value's
/// `sim_exercises`.
pub const SIM_EXERCISES: &[SimExercise] = &[SimExercise {
    id: "predict-misses",
    file: "exercises/k1_row_col_major/predict_misses.rs",
    solution: "chapters/k1_row_col_major/src/solutions/predict_misses.rs",
    check: || {
        let (text, passed) = check(student::predict, SHOWN_CASES);
        SimReport { text, passed }
    },
}];

// ANCHOR: wrong
/// Plausible wrong predictions, each rejected by the battery.
pub const WRONG: &[(&str, Predict)] = &[
    ("every crossing access misses", |shape, storage, traversal, cache| {
        let accesses = shape.elements();
        let misses = if traversal == Traversal::natural_for(storage) {
            (accesses * ELEM_BYTES).div_ceil(cache.line_bytes)
        } else {
            accesses
        };
        CacheStats { hits: accesses - misses, misses }
    }),
    ("the order does not matter", |shape, _, _, cache| {
        let accesses = shape.elements();
        let misses = (accesses * ELEM_BYTES).div_ceil(cache.line_bytes);
        CacheStats { hits: accesses - misses, misses }
    }),
    ("a line holds line_bytes elements", |shape, storage, traversal, cache| {
        let accesses = shape.elements();
        let misses =
            if traversal == Traversal::natural_for(storage) { accesses.div_ceil(cache.line_bytes) } else { accesses };
        CacheStats { hits: accesses - misses, misses }
    }),
];
// ANCHOR_END: wrong

/// One case of the battery.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub shape: Shape,
    pub storage: StorageOrder,
    pub traversal: Traversal,
    pub cache: CacheConfig,
}

/// The battery's shapes (rows, cols).
pub const BATTERY_SHAPES: [(u64, u64); 6] = [(4, 16), (16, 16), (3, 48), (5, 32), (64, 64), (16, 4)];
/// The battery's cache sizes, in 64-byte lines.
pub const BATTERY_CACHE_LINES: [u64; 3] = [4, 8, 64];

/// The battery: every shape x 2 storage orders x 2 traversals x every cache
/// of 64-byte lines, keeping only cases whose contiguous runs are whole lines.
pub fn battery() -> Vec<Case> {
    let mut cases = Vec::new();
    for (r, c) in BATTERY_SHAPES {
        for storage in [StorageOrder::RowMajor, StorageOrder::ColMajor] {
            for traversal in [Traversal::RowOuter, Traversal::ColOuter] {
                for lines in BATTERY_CACHE_LINES {
                    let shape = Shape::new(r, c);
                    let run = match storage {
                        StorageOrder::RowMajor => c,
                        StorageOrder::ColMajor => r,
                    };
                    if (run * ELEM_BYTES).is_multiple_of(64) {
                        cases.push(Case {
                            shape,
                            storage,
                            traversal,
                            cache: CacheConfig::fully_associative(lines, 64),
                        });
                    }
                }
            }
        }
    }
    cases
}

fn describe(c: &Case) -> String {
    let storage = match c.storage {
        StorageOrder::RowMajor => "row-major",
        StorageOrder::ColMajor => "col-major",
    };
    let traversal = match c.traversal {
        Traversal::RowOuter => "row outer",
        Traversal::ColOuter => "col outer",
    };
    format!("{} {storage}, {traversal}, {} lines", c.shape, c.cache.lines)
}

/// Checks `predict` against the simulator on the battery: one line per
/// wrong case (the first `shown` of them), and a result line. Returns the
/// report and whether every case matched.
pub fn check(predict: Predict, shown: usize) -> (String, bool) {
    let mut out = Report::new();
    out.heading("predicted against simulated hits and misses");
    let cases = battery();
    let mut wrong = 0;
    for c in &cases {
        let (p, s) =
            (predict(c.shape, c.storage, c.traversal, c.cache), simulate(c.shape, c.storage, c.traversal, c.cache));
        if p != s {
            wrong += 1;
            if wrong <= shown {
                out.line(format!(
                    "  {}: predicted {} hits, {} misses; simulated {} hits, {} misses: {}",
                    describe(c),
                    p.hits,
                    p.misses,
                    s.hits,
                    s.misses,
                    report::flag(false, "FAIL")
                ));
            }
        }
    }
    if wrong > shown {
        out.line(format!("  ... and {} more", wrong - shown));
    }
    let ok = wrong == 0;
    out.line(format!(
        "result: {} of {} cases match: {}",
        cases.len() - wrong,
        cases.len(),
        report::flag(ok, if ok { "pass" } else { "FAIL" })
    ));
    (out.into_string(), ok)
}

/// The starter's prediction: nothing (what the student's file holds
/// before it is edited, and what the exercise page's report shows).
pub fn predict_nothing(shape: Shape, storage: StorageOrder, traversal: Traversal, cache: CacheConfig) -> CacheStats {
    let _ = (shape, storage, traversal, cache);
    CacheStats { hits: 0, misses: 0 }
}

/// The report the exercise page shows: a prediction of nothing, checked.
pub fn starter_report() -> String {
    check(predict_nothing, SHOWN_CASES).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_battery_covers_both_outcomes_of_a_crossing_traversal() {
        let cases = battery();
        assert!(cases.len() >= 40, "{}", cases.len());
        let crossing = |c: &&Case| c.traversal != Traversal::natural_for(c.storage);
        let all_miss = cases.iter().filter(crossing).filter(|c| {
            let s = simulate(c.shape, c.storage, c.traversal, c.cache);
            s.hits == 0
        });
        assert!(
            all_miss.count() > 0
                && cases.iter().filter(crossing).any(|c| simulate(c.shape, c.storage, c.traversal, c.cache).hits > 0)
        );
    }

    #[test]
    fn the_solution_matches_the_simulator_and_every_wrong_prediction_fails() {
        let (report, ok) = check(solution::predict, usize::MAX);
        assert!(ok, "{report}");
        for (name, wrong) in WRONG {
            assert!(!check(*wrong, 0).1, "the checker accepts the wrong prediction '{name}'");
        }
    }
}
