//! The numbers K.3's page quotes, computed here (see `book/values.txt`).

use crate::{
    coverage_of, demo_lanes, demo_sectors, traffic, validate, Mapping, DEMO_BLOCK, DEMO_BLOCK_IDX, DEMO_SHAPE,
    DEMO_THREAD_Y, ELEM_BYTES, SOURCE_CASES, WARP,
};
use ktrav::geometry::ceil_div;
use ktrav::{Dim2, Shape, Thread};

/// The page's try-it matrix that only the conventional mapping can launch.
pub const TOO_TALL_FOR_SWAPPED: (Shape, Dim2) = (Shape::new(5, 3_000_000), Dim2::new(16, 16));

/// One source case's launch as the worked example counts it: (grid x, grid
/// y, threads along x, along y, surplus along x, along y, launched, needed,
/// surplus in all).
pub fn launch_counts(case: usize) -> [u64; 9] {
    let c = SOURCE_CASES[case];
    let cfg = validate(c.shape, c.block).expect("the source's cases are valid");
    let w = cfg.waste(c.shape);
    [
        cfg.grid.x as u64,
        cfg.grid.y as u64,
        cfg.threads_x(),
        cfg.threads_y(),
        w.x,
        w.y,
        cfg.total_threads(),
        c.shape.elements(),
        w.total,
    ]
}

/// Sectors per warp of each mapping's copy of `shape` under `block`: (x
/// along columns, x along rows).
pub fn sectors_per_warp(shape: Shape, block: Dim2) -> (f64, f64) {
    let per = |m: Mapping| {
        let cfg = m.launch(shape, block).expect("a valid launch");
        let t = traffic(m, shape, &cfg);
        t.sectors as f64 / t.warps as f64
    };
    (per(Mapping::XToCol), per(Mapping::XToRow))
}

/// The last lane of the demonstration warp, the whole warp and not only the
/// lanes the worked example shows, and the column it lands on under
/// x -> column. The warp is `WARP` consecutive linear thread indices of the
/// block; the page speaks of its lanes as one row of threads, so it must not
/// reach into the next row.
pub fn demo_warp_end() -> (u32, u64) {
    let cfg = Mapping::XToCol.launch(DEMO_SHAPE, DEMO_BLOCK).expect("the demo launch is valid");
    let first = DEMO_THREAD_Y * DEMO_BLOCK.x;
    let last = (first / WARP + 1) * WARP - 1;
    let thread_idx = Dim2::new(last % DEMO_BLOCK.x, last / DEMO_BLOCK.x);
    assert_eq!(thread_idx.y, DEMO_THREAD_Y, "the demo warp is one row of threads");
    let t = Thread { block_idx: DEMO_BLOCK_IDX, thread_idx, block_dim: cfg.block, grid_dim: cfg.grid };
    (thread_idx.x, Mapping::XToCol.coords(&t).1)
}

/// The x -> row kernel launched on the grid sized for x -> column, over
/// each source case: the elements it never touches.
pub fn swapped_on_the_usual_grid() -> Vec<u64> {
    SOURCE_CASES
        .iter()
        .map(|c| {
            let cfg = validate(c.shape, c.block).expect("the source's cases are valid");
            coverage_of(c.shape, &cfg, |t| Mapping::XToRow.element(t, c.shape)).never
        })
        .collect()
}

/// What `--block-x 64 --block-y 32` is refused with (after `error: `), as
/// "Try it" shows.
pub fn block64x32_error() -> String {
    crate::validate(Shape::new(1, 1), Dim2::new(64, 32)).expect_err("a 2048-thread block is refused").to_string()
}

pub fn values() -> Vec<(&'static str, String)> {
    let c = SOURCE_CASES[3];
    let (col, row) = sectors_per_warp(c.shape, c.block);
    let traffic_of = |m: Mapping| traffic(m, c.shape, &m.launch(c.shape, c.block).expect("a valid launch"));
    let (good, bad) = (traffic_of(Mapping::XToCol), traffic_of(Mapping::XToRow));
    // The last block column of a row of case 4: the columns it holds.
    let last_cols = c.shape.cols - (ceil_div(c.shape.cols, c.block.x as u64) - 1) * c.block.x as u64;
    let last_sectors = ceil_div(last_cols * ELEM_BYTES, crate::SECTOR_BYTES);
    let [gx, gy, tx, ty, wx, wy, launched, needed, wasted] = launch_counts(1);
    let case3 = launch_counts(2);
    let case4 = launch_counts(3);
    // The demonstration warp: its row and first column, the first lane past
    // the edge and its addresses, and the element the first of those is.
    let lanes = demo_lanes(Mapping::XToCol);
    let past: Vec<_> = lanes.iter().filter(|l| l.2 >= DEMO_SHAPE.cols).collect();
    let first_past = past.first().expect("the demo warp overshoots the edge");
    let last = lanes.last().expect("lanes");
    let swapped = demo_lanes(Mapping::XToRow);
    let (_, good_sectors) = demo_sectors(Mapping::XToCol);
    let (tall, tall_block) = TOO_TALL_FOR_SWAPPED;
    let (warp_last_lane, warp_last_col) = demo_warp_end();
    let missed = swapped_on_the_usual_grid();
    vec![
        ("k3.try.block64x32_error", block64x32_error()),
        ("k3.sectors.x_to_col_per_warp", format!("{col:.2}")),
        ("k3.sectors.x_to_row_per_warp", format!("{row:.2}")),
        ("k3.sectors.ratio", format!("{:.2}", row / col)),
        ("k3.sectors.ratio_whole", format!("{:.0}", row / col)),
        ("k3.sectors.full_warp", good.max_per_warp.to_string()),
        ("k3.sectors.full_warp_bytes", (good.max_per_warp * crate::SECTOR_BYTES).to_string()),
        ("k3.sectors.x_to_col_total", good.sectors.to_string()),
        ("k3.sectors.x_to_row_total", bad.sectors.to_string()),
        ("k3.sectors.x_to_row_max", bad.max_per_warp.to_string()),
        ("k3.sectors.minimum", good.minimum.to_string()),
        ("k3.sectors.warps", good.warps.to_string()),
        ("k3.sectors.data_bytes", (c.shape.elements() * ELEM_BYTES).to_string()),
        ("k3.sectors.last_warp_cols", last_cols.to_string()),
        ("k3.sectors.last_warp_sectors", last_sectors.to_string()),
        ("k3.case2.grid_x", gx.to_string()),
        ("k3.case2.grid_y", gy.to_string()),
        ("k3.case2.threads_x", tx.to_string()),
        ("k3.case2.threads_y", ty.to_string()),
        ("k3.case2.surplus_x", wx.to_string()),
        ("k3.case2.surplus_y", wy.to_string()),
        ("k3.case2.launched", launched.to_string()),
        ("k3.case2.needed", needed.to_string()),
        ("k3.case2.wasted", wasted.to_string()),
        ("k3.case3.surplus_y", case3[5].to_string()),
        ("k3.case3.launched", case3[6].to_string()),
        ("k3.case3.wasted", case3[8].to_string()),
        ("k3.case4.surplus_x", case4[4].to_string()),
        ("k3.case4.wasted", case4[8].to_string()),
        ("k3.demo.row", first_past.1.to_string()),
        ("k3.demo.first_col", lanes[0].2.to_string()),
        ("k3.demo.second_col", lanes[1].2.to_string()),
        ("k3.demo.first_past_lane", first_past.0.to_string()),
        ("k3.demo.last_lane", last.0.to_string()),
        ("k3.demo.first_past_col", first_past.2.to_string()),
        ("k3.demo.last_col", last.2.to_string()),
        ("k3.demo.warp_last_lane", warp_last_lane.to_string()),
        ("k3.demo.warp_last_col", warp_last_col.to_string()),
        ("k3.demo.first_past_address", first_past.3.to_string()),
        ("k3.demo.last_address", last.3.to_string()),
        ("k3.demo.first_past_is", format!("({}, {})", first_past.3 / DEMO_SHAPE.cols, first_past.3 % DEMO_SHAPE.cols)),
        ("k3.demo.swapped_first_row", swapped[0].1.to_string()),
        ("k3.demo.swapped_second_row", swapped[1].1.to_string()),
        ("k3.demo.swapped_col", swapped[0].2.to_string()),
        ("k3.demo.swapped_stride", crate::lane_stride(&swapped).expect("an even stride").to_string()),
        ("k3.demo.coalesced_sectors", good_sectors.to_string()),
        ("k3.trap.case2_never", missed[1].to_string()),
        ("k3.trap.case3_never", missed[2].to_string()),
        ("k3.trap.cases_missed", missed.iter().filter(|&&n| n > 0).count().to_string()),
        ("k3.swapped_grid_y", ceil_div(tall.cols, tall_block.y as u64).to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launch_counts_are_the_worked_examples() {
        assert_eq!(launch_counts(1), [4, 3, 64, 48, 3, 11, 3072, 2257, 815]);
        let get = |n: &str| values().into_iter().find(|(k, _)| *k == n).unwrap().1;
        assert_eq!(get("k3.demo.first_past_address"), "1800");
        assert_eq!(demo_warp_end(), (31, 127));
        assert_eq!(get("k3.sectors.x_to_col_total"), get("k3.sectors.minimum"));
        // 37 rows by the 13 columns past y's 48 threads; 5 rows by 184.
        assert_eq!(swapped_on_the_usual_grid(), [0, 481, 920, 0]);
    }

    #[test]
    fn a_changed_block_changes_the_swapped_count() {
        let c = SOURCE_CASES[3];
        assert_ne!(sectors_per_warp(c.shape, c.block).1, sectors_per_warp(c.shape, Dim2::new(8, 32)).1);
    }
}
