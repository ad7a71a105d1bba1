//! The numbers K.4's page quotes, computed here (see `book/values.txt`).

use crate::{
    explore_block_rows, explore_shuffles, launch_plan, run_add, run_fill, Fill, LARGE_BLOCK, LARGE_SHAPE,
    LARGE_SHUFFLES, SOURCE_BLOCK, SOURCE_SHAPE,
};
use ktrav::{BlockOrder, Dim2, Shape};

/// The addition with only the row checked, run in reverse: the stray
/// threads (those past the last column) whose store lands past the last
/// row, each having read one element of `a` and one of `b` there: (stray
/// threads past the end, their reads, their writes).
pub fn strays_past_the_end(shape: Shape, block: Dim2) -> (u64, u64, u64) {
    let plan = launch_plan(shape, block).expect("a valid launch");
    let buf = run_add(&plan, &BlockOrder::Reverse);
    let past = buf.log().iter().filter(|((_, wc), s)| *wc >= shape.cols && s.index >= shape.elements()).count() as u64;
    // Each reads a[i] and b[i] through the same flat index and writes out[i].
    (past, 2 * past, past)
}

/// The values the row-only fill leaves in the first cell of every row
/// below row 0 when its block rows run in reverse: the markers of the
/// strays from the row above.
pub fn reversed_first_cells(shape: Shape, block: Dim2) -> Vec<f32> {
    let plan = launch_plan(shape, block).expect("a valid launch");
    let buf = run_fill(&plan, &BlockOrder::Reverse, Fill::RowOnly);
    (1..shape.rows).map(|r| buf.get(r, 0)).collect()
}

/// After the reversed row-only fill, what the stray threads of each row
/// left at the start of the row below: its first cells, one per thread
/// past the last column, rows 1 onwards.
pub fn reversed_stray_cells(shape: Shape, block: Dim2) -> Vec<f32> {
    let plan = launch_plan(shape, block).expect("a valid launch");
    let strays = plan.cfg.threads_x() - shape.cols;
    let buf = run_fill(&plan, &BlockOrder::Reverse, Fill::RowOnly);
    (1..shape.rows).flat_map(|r| (0..strays).map(move |c| (r, c))).map(|(r, c)| buf.get(r, c)).collect()
}

fn list(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

pub fn values() -> Vec<(&'static str, String)> {
    let (threads, reads, writes) = strays_past_the_end(SOURCE_SHAPE, SOURCE_BLOCK);
    let plan = launch_plan(SOURCE_SHAPE, SOURCE_BLOCK).expect("the source's launch is valid");
    let small = explore_block_rows(&plan);
    let counts: Vec<u64> = small.by_wrong_rows.values().map(|(n, _)| *n).collect();
    let (clean, full) = (counts[0], *counts.last().expect("outcomes"));
    let big = launch_plan(LARGE_SHAPE, LARGE_BLOCK).expect("the large launch is valid");
    let shuffled = explore_shuffles(&big, 0, LARGE_SHUFFLES);
    let wrong_rows = |o: &std::collections::BTreeMap<u64, (u64, u64)>| {
        (*o.keys().next().expect("outcomes"), *o.keys().last().expect("outcomes"))
    };
    let (lo, hi) = wrong_rows(&shuffled.by_wrong_rows);
    // The two counts of wrong rows the shuffles leave most often, the
    // commoner first.
    let mut by_runs: Vec<(u64, u64)> = shuffled.by_wrong_rows.iter().map(|(&rows, &(runs, _))| (runs, rows)).collect();
    by_runs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let commonest: Vec<u64> = by_runs.iter().take(2).map(|&(_, rows)| rows).collect();
    let plain_markers: Vec<String> =
        reversed_stray_cells(SOURCE_SHAPE, SOURCE_BLOCK).iter().map(|m| m.to_string()).collect();
    let markers: Vec<String> =
        reversed_first_cells(SOURCE_SHAPE, SOURCE_BLOCK).iter().map(|m| format!("`{m}`")).collect();
    let per_row = plan.cfg.threads_x();
    vec![
        ("k4.past_end.threads", threads.to_string()),
        ("k4.past_end.reads", reads.to_string()),
        ("k4.past_end.writes", writes.to_string()),
        ("k4.source.blocks_per_row", plan.cfg.grid.x.to_string()),
        ("k4.source.threads_per_row", per_row.to_string()),
        ("k4.source.strays_per_row", (per_row - SOURCE_SHAPE.cols).to_string()),
        ("k4.source.first_stray_col", SOURCE_SHAPE.cols.to_string()),
        ("k4.source.last_stray_col", (per_row - 1).to_string()),
        ("k4.source.last_stray_lands", ((per_row - 1) % SOURCE_SHAPE.cols).to_string()),
        ("k4.reversed.markers", list(&markers)),
        ("k4.reversed.markers_plain", plain_markers.join(", ")),
        ("k4.orders.count", small.runs.to_string()),
        ("k4.orders.counts", counts.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")),
        ("k4.orders.clean", clean.to_string()),
        ("k4.orders.full", full.to_string()),
        ("k4.orders.between", (small.runs - clean - full).to_string()),
        ("k4.shuffles.count", LARGE_SHUFFLES.to_string()),
        ("k4.shuffles.blocks", big.cfg.blocks().to_string()),
        ("k4.shuffles.fewest_wrong", lo.to_string()),
        ("k4.shuffles.most_wrong", hi.to_string()),
        ("k4.shuffles.commonest", commonest.iter().map(u64::to_string).collect::<Vec<_>>().join(", then ")),
        ("k4.shuffles.rows_per_block_row", LARGE_BLOCK.y.to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_launch_has_two_strays_past_the_end() {
        assert_eq!(strays_past_the_end(SOURCE_SHAPE, SOURCE_BLOCK), (2, 4, 2));
    }

    #[test]
    fn the_orders_are_the_eulerian_numbers_and_the_markers_the_strays() {
        let get = |n: &str| values().into_iter().find(|(k, _)| *k == n).unwrap().1;
        assert_eq!(get("k4.orders.counts"), "1, 11, 11, 1");
        assert_eq!(get("k4.reversed.markers"), "`10`, `1010` and `2010`");
        assert_eq!((get("k4.shuffles.blocks"), get("k4.shuffles.most_wrong")), ("42".into(), "23".into()));
    }

    #[test]
    fn a_changed_shape_changes_the_count() {
        // 4x9 under 4x1 blocks: three threads per row past the last column.
        assert_eq!(strays_past_the_end(Shape::new(4, 9), SOURCE_BLOCK).0, 3);
    }
}
