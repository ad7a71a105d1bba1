//! The numbers K.6's page quotes, computed here (see `book/values.txt`).

use crate::gpu::LARGE_SHAPES;
use crate::{
    coalescing, every_shape_up_to, last_ring, plan, ring_start, Kernel, EXHAUSTIVE_SIDE, SECTOR_BYTES, SOURCE_BLOCK,
    SOURCE_KERNEL_CASES,
};
use ktrav::{Dim2, Shape};

/// The coalescing table's matrix and block.
pub const COALESCING_SHAPE: Shape = Shape::new(64, 64);
pub const COALESCING_BLOCK: Dim2 = Dim2::new(32, 8);

fn mb(shape: Shape) -> String {
    format!("{:.0}", (shape.elements() * 4) as f64 / 1e6)
}

/// The ranks each ring of `shape` holds, outermost first, as `a to b`.
pub fn ring_ranks(shape: Shape) -> Vec<String> {
    let (rows, cols) = (shape.rows, shape.cols);
    (0..=last_ring(rows, cols))
        .map(|k| {
            let end = if k == last_ring(rows, cols) { shape.elements() } else { ring_start(k + 1, rows, cols) };
            format!("{} to {}", ring_start(k, rows, cols), end - 1)
        })
        .collect()
}

/// The shape whose ranks the page reads off the beyond-the-source grid.
pub const RANK_GRID: Shape = Shape::new(4, 5);

/// One kernel case's launch: (grid, threads along x, along y, launched,
/// cells, idle).
fn launch_of(shape: Shape) -> (String, u64, u64, u64, u64, u64) {
    let cfg = plan(shape, SOURCE_BLOCK).expect("the source's launch shapes are valid");
    (
        cfg.grid.to_string(),
        cfg.threads_x(),
        cfg.threads_y(),
        cfg.total_threads(),
        shape.elements(),
        cfg.waste(shape).total,
    )
}

pub fn values() -> Vec<(&'static str, String)> {
    let s = coalescing(Kernel::Scatter, COALESCING_SHAPE, COALESCING_BLOCK).expect("a valid launch");
    let g = coalescing(Kernel::Gather, COALESCING_SHAPE, COALESCING_BLOCK).expect("a valid launch");
    let total = |per: f64| format!("{:.0}", per * s.warps as f64);
    let (shapes, positions, _) = every_shape_up_to(EXHAUSTIVE_SIDE);
    let fig = crate::figures::SHAPES.map(|(r, c)| ring_ranks(Shape::new(r, c)));
    let grid = ring_ranks(RANK_GRID);
    let (rows, cols) = (RANK_GRID.rows, RANK_GRID.cols);
    let start = ring_start(1, rows, cols);
    let (g2, x2, y2, n2, cells2, idle2) = launch_of(SOURCE_KERNEL_CASES[1]);
    let (_, _, _, n3, cells3, idle3) = launch_of(SOURCE_KERNEL_CASES[2]);
    let blocks3 = plan(SOURCE_KERNEL_CASES[2], SOURCE_BLOCK).expect("valid").blocks();
    let mut v = vec![
        ("k6.walk.3x3", crate::sequence_3x3()),
        ("k6.inverse.largest", Shape::new(EXHAUSTIVE_SIDE, EXHAUSTIVE_SIDE).to_string().replace('x', "×")),
        ("k6.inverse.shapes", shapes.to_string()),
        ("k6.inverse.positions", positions.to_string()),
        ("k6.figure.wide.ring0", fig[0][0].clone()),
        ("k6.figure.wide.ring1", fig[0][1].clone()),
        ("k6.figure.wide.ring2", fig[0][2].clone()),
        ("k6.figure.tall.ring0", fig[1][0].clone()),
        ("k6.figure.tall.ring1", fig[1][1].clone()),
        ("k6.grid45.ring0", grid[0].clone()),
        ("k6.grid45.ring1", grid[1].clone()),
        ("k6.grid45.ring1_start", format!("{} - {}*{} = {start}", rows * cols, rows - 2, cols - 2)),
        ("k6.kernel.case2.grid", g2),
        ("k6.kernel.case2.threads_x", x2.to_string()),
        ("k6.kernel.case2.threads_y", y2.to_string()),
        ("k6.kernel.case2.launched", n2.to_string()),
        ("k6.kernel.case2.cells", cells2.to_string()),
        ("k6.kernel.case2.idle", idle2.to_string()),
        ("k6.kernel.case3.blocks", blocks3.to_string()),
        ("k6.kernel.case3.launched", n3.to_string()),
        ("k6.kernel.case3.cells", cells3.to_string()),
        ("k6.kernel.case3.idle", idle3.to_string()),
    ];
    v.extend(vec![
        ("k6.coalescing.shape", COALESCING_SHAPE.to_string()),
        ("k6.coalescing.block", COALESCING_BLOCK.to_string()),
        ("k6.coalescing.warps", s.warps.to_string()),
        ("k6.coalescing.sector_bytes", SECTOR_BYTES.to_string()),
        ("k6.coalescing.coalesced", format!("{:.0}", s.read_sectors)),
        ("k6.coalescing.scatter_stores", format!("{:.1}", s.write_sectors)),
        ("k6.coalescing.gather_loads", format!("{:.1}", g.read_sectors)),
        ("k6.coalescing.scatter_stores_total", total(s.write_sectors)),
        ("k6.coalescing.gather_loads_total", total(g.read_sectors)),
        ("k6.coalescing.scatter_ratio", format!("{:.1}", s.write_sectors / s.read_sectors)),
        ("k6.gpu.large1", LARGE_SHAPES[0].0.to_string()),
        ("k6.gpu.large1_mb", mb(LARGE_SHAPES[0].0)),
        ("k6.gpu.large3", LARGE_SHAPES[2].0.to_string()),
        ("k6.gpu.large3_gb", format!("{:.1}", (LARGE_SHAPES[2].0.elements() * 4) as f64 / 1e9)),
    ]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rings_and_launches_are_the_pages() {
        assert_eq!(ring_ranks(Shape::new(5, 7)), ["0 to 19", "20 to 31", "32 to 34"]);
        assert_eq!(ring_ranks(RANK_GRID), ["0 to 13", "14 to 19"]);
        assert_eq!(launch_of(SOURCE_KERNEL_CASES[1]), ("2x2".to_string(), 8, 8, 64, 35, 29));
    }

    #[test]
    fn a_changed_block_changes_the_scattered_count() {
        let shown = coalescing(Kernel::Scatter, COALESCING_SHAPE, COALESCING_BLOCK).unwrap().write_sectors;
        let other = coalescing(Kernel::Scatter, COALESCING_SHAPE, Dim2::new(16, 16)).unwrap().write_sectors;
        assert_ne!(shown, other);
    }
}
