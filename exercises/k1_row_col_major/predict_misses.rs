//! Exercise `predict-misses`: your prediction, before running anything, of
//! a traversal's cache hits and misses. Write the body, then check it
//! against the cache simulator by
//!
//! ```text
//! cargo run -p k1_row_col_major -- sim-check predict-misses
//! ```

use crate::{CacheConfig, CacheStats, Traversal, ELEM_BYTES};
use ktrav::{Shape, StorageOrder};

/// Predict the hits and misses of visiting every element of `shape`,
/// stored in `storage`, in `traversal` order, through a fresh fully
/// associative LRU cache of `cache.lines` lines of `cache.line_bytes` bytes
/// (elements are `ELEM_BYTES` = 4-byte floats; the matrix starts on a line
/// boundary).
pub fn predict(shape: Shape, storage: StorageOrder, traversal: Traversal, cache: CacheConfig) -> CacheStats {
    let _ = (shape, storage, traversal, cache, ELEM_BYTES);
    // TODO: how many distinct lines does the matrix span? Does the
    // traversal use each line's elements while the line is still cached?
    CacheStats { hits: 0, misses: 0 }
}
