//! The numbers K.1's page and the summary quote, computed here (see
//! `book/values.txt`).
//!
//! The mirror rule: crossing a layout hurts by the crossing stride in cache
//! lines *and* by how many lines one pass of the crossing loop touches
//! against what the cache holds. A 16x64 matrix under a 16-line cache
//! shows both at once: its row-major crossing (a stride of four lines, a
//! pass of sixteen) fits the cache and hits, its column-major crossing (a
//! stride of one line, a pass of sixty-four) does not.

use crate::{simulate, CacheConfig, Traversal, ELEM_BYTES, SOURCE_CACHE};
use ktrav::{Shape, StorageOrder};

/// The matrix and cache of the mirror rule's example.
pub const MIRROR_SHAPE: Shape = Shape::new(16, 64);
pub const MIRROR_CACHE: CacheConfig = CacheConfig::fully_associative(16, 64);

/// One layout crossed: its stride and one pass, in cache lines (a stride
/// below one line is a fraction), and the hits and misses of the crossing.
pub struct Crossing {
    pub stride_lines: f64,
    pub pass_lines: u64,
    pub hits: u64,
    pub misses: u64,
}

/// Row-major storage crossed (columns outer), then column-major crossed
/// (rows outer), of `shape` under `cache`.
pub fn crossings(shape: Shape, cache: CacheConfig) -> [Crossing; 2] {
    let per_line = cache.line_bytes / ELEM_BYTES;
    let crossing = |storage, traversal, stride: u64, pass: u64| {
        let stats = simulate(shape, storage, traversal, cache);
        Crossing {
            stride_lines: stride as f64 / per_line as f64,
            // One pass visits `pass` elements `stride` floats apart: as many
            // lines as elements once the stride is a line or more.
            pass_lines: if stride >= per_line { pass } else { (pass * stride).div_ceil(per_line) },
            hits: stats.hits,
            misses: stats.misses,
        }
    };
    [
        crossing(StorageOrder::RowMajor, Traversal::ColOuter, shape.cols, shape.rows),
        crossing(StorageOrder::ColMajor, Traversal::RowOuter, shape.rows, shape.cols),
    ]
}

fn lines(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

fn percent(hits: u64, all: u64) -> String {
    let p = 100.0 * hits as f64 / all as f64;
    if p.fract() == 0.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.2} %")
    }
}

/// The non-square matrix of the page's Try it, under the source's cache.
pub const TRY_IT_SHAPE: Shape = Shape::new(32, 64);

/// `n` in words, as the prose counts small things.
fn number_word(n: usize) -> String {
    const WORDS: [&str; 11] = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    WORDS.get(n).map_or_else(|| n.to_string(), |w| w.to_string())
}

/// `4, 8 and 64`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

pub fn values() -> Vec<(&'static str, String)> {
    let [row, col] = crossings(MIRROR_SHAPE, MIRROR_CACHE);
    let [t_row, t_col] = crossings(TRY_IT_SHAPE, SOURCE_CACHE);
    let t_follow = simulate(TRY_IT_SHAPE, StorageOrder::ColMajor, Traversal::ColOuter, SOURCE_CACHE);
    let t_follow_row = simulate(TRY_IT_SHAPE, StorageOrder::RowMajor, Traversal::RowOuter, SOURCE_CACHE);
    let both = |a: String, b: String| if a == b { a } else { format!("{a} and {b}") };
    let source = Shape::new(8, 64);
    let [s_row, s_col] = crossings(source, SOURCE_CACHE);
    let follow = simulate(source, StorageOrder::RowMajor, Traversal::RowOuter, SOURCE_CACHE);
    let battery = crate::exercises::battery();
    let shapes: Vec<String> =
        crate::exercises::BATTERY_SHAPES.iter().map(|&(r, c)| Shape::new(r, c).to_string()).collect();
    let caches: Vec<String> = crate::exercises::BATTERY_CACHE_LINES.iter().map(u64::to_string).collect();
    let bench = Shape::new(crate::BENCH_SIDE, crate::BENCH_SIDE);
    vec![
        ("k1.check.cases", battery.len().to_string()),
        ("k1.check.shape_count", number_word(shapes.len())),
        ("k1.check.shapes", shapes.join(", ")),
        ("k1.check.cache_lines", and_list(&caches)),
        ("k1.bench.shape", format!("{}×{}", bench.rows, bench.cols)),
        ("k1.bench.accesses_millions", format!("{:.1}", bench.elements() as f64 / 1e6)),
        ("k1.mirror.shape", format!("{}×{}", MIRROR_SHAPE.rows, MIRROR_SHAPE.cols)),
        ("k1.mirror.cache_lines", MIRROR_CACHE.lines.to_string()),
        ("k1.mirror.row_stride_lines", lines(row.stride_lines)),
        ("k1.mirror.row_pass_lines", row.pass_lines.to_string()),
        ("k1.mirror.row_hits", row.hits.to_string()),
        ("k1.mirror.row_misses", row.misses.to_string()),
        ("k1.mirror.col_stride_lines", lines(col.stride_lines)),
        ("k1.mirror.col_pass_lines", col.pass_lines.to_string()),
        ("k1.mirror.col_hits", col.hits.to_string()),
        ("k1.mirror.col_misses", col.misses.to_string()),
        ("k1.source.cache_lines", SOURCE_CACHE.lines.to_string()),
        ("k1.source.follow_rate", percent(follow.hits, follow.hits + follow.misses)),
        ("k1.source.row_cross_rate", percent(s_row.hits, s_row.hits + s_row.misses)),
        ("k1.source.col_cross_rate", percent(s_col.hits, s_col.hits + s_col.misses)),
        ("k1.source.row_stride_lines", lines(s_row.stride_lines)),
        ("k1.source.col_stride_lines", lines(s_col.stride_lines)),
        ("k1.source.row_pass_lines", s_row.pass_lines.to_string()),
        ("k1.source.col_pass_lines", s_col.pass_lines.to_string()),
        ("k1.source.line_floats", (SOURCE_CACHE.line_bytes / ELEM_BYTES).to_string()),
        ("k1.source.follow_hits", follow.hits.to_string()),
        ("k1.source.follow_misses", follow.misses.to_string()),
        (
            "k1.source.follow_hits_per_line",
            format!("{} of every {}", SOURCE_CACHE.line_bytes / ELEM_BYTES - 1, SOURCE_CACHE.line_bytes / ELEM_BYTES),
        ),
        ("k1.source.row_cross_misses", s_row.misses.to_string()),
        ("k1.source.col_cross_hits", s_col.hits.to_string()),
        ("k1.source.col_cross_misses", s_col.misses.to_string()),
        ("k1.try_it.row_stride_lines", lines(t_row.stride_lines)),
        ("k1.try_it.col_stride_lines", lines(t_col.stride_lines)),
        ("k1.try_it.row_pass_lines", t_row.pass_lines.to_string()),
        ("k1.try_it.col_pass_lines", t_col.pass_lines.to_string()),
        (
            "k1.try_it.cross_rate",
            both(percent(t_row.hits, t_row.hits + t_row.misses), percent(t_col.hits, t_col.hits + t_col.misses)),
        ),
        (
            "k1.try_it.follow_rate",
            both(
                percent(t_follow_row.hits, t_follow_row.hits + t_follow_row.misses),
                percent(t_follow.hits, t_follow.hits + t_follow.misses),
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mirror_example_crosses_as_the_page_says() {
        let [row, col] = crossings(MIRROR_SHAPE, MIRROR_CACHE);
        assert_eq!((row.stride_lines, row.pass_lines, row.hits, row.misses), (4.0, 16, 960, 64));
        assert_eq!((col.stride_lines, col.pass_lines, col.hits, col.misses), (1.0, 64, 0, 1024));
    }

    #[test]
    fn a_smaller_cache_changes_the_values() {
        // With fewer lines than one row-major pass touches, that crossing
        // stops hitting too.
        let [row, _] = crossings(MIRROR_SHAPE, CacheConfig::fully_associative(8, 64));
        assert_eq!(row.hits, 0);
    }
}
