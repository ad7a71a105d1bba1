//! The solution of `predict-misses`, in the form of the student's
//! `exercises/k1_row_col_major/predict_misses.rs`: put in its place, it
//! passes.

use crate::{CacheConfig, CacheStats, Traversal, ELEM_BYTES};
use ktrav::{Shape, StorageOrder};

pub fn predict(shape: Shape, storage: StorageOrder, traversal: Traversal, cache: CacheConfig) -> CacheStats {
    let accesses = shape.elements();
    let lines = (accesses * ELEM_BYTES).div_ceil(cache.line_bytes);
    // The inner loop of a crossing traversal touches one line per
    // contiguous run (a row of a row-major matrix): that many lines must
    // stay cached until the next sweep comes back for their next elements.
    let runs = match storage {
        StorageOrder::RowMajor => shape.rows,
        StorageOrder::ColMajor => shape.cols,
    };
    let misses = if traversal == Traversal::natural_for(storage) || runs <= cache.lines {
        lines // each line is loaded once and used up before it is evicted
    } else {
        accesses // LRU over a cycle longer than the cache: every access misses
    };
    CacheStats { hits: accesses - misses, misses }
}
