//! The numbers K.6's page quotes, computed here (see `book/values.txt`).

use crate::gpu::LARGE_SHAPES;
use crate::{coalescing, Kernel, SECTOR_BYTES};
use ktrav::{Dim2, Shape};

/// The coalescing table's matrix and block.
pub const COALESCING_SHAPE: Shape = Shape::new(64, 64);
pub const COALESCING_BLOCK: Dim2 = Dim2::new(32, 8);

fn mb(shape: Shape) -> String {
    format!("{:.0}", (shape.elements() * 4) as f64 / 1e6)
}

pub fn values() -> Vec<(&'static str, String)> {
    let s = coalescing(Kernel::Scatter, COALESCING_SHAPE, COALESCING_BLOCK).expect("a valid launch");
    let g = coalescing(Kernel::Gather, COALESCING_SHAPE, COALESCING_BLOCK).expect("a valid launch");
    let total = |per: f64| format!("{:.0}", per * s.warps as f64);
    vec![
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
        ("k6.gpu.large3_gb", format!("{:.1}", (LARGE_SHAPES[2].0.elements() * 4) as f64 / 1e9)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_block_changes_the_scattered_count() {
        let shown = coalescing(Kernel::Scatter, COALESCING_SHAPE, COALESCING_BLOCK).unwrap().write_sectors;
        let other = coalescing(Kernel::Scatter, COALESCING_SHAPE, Dim2::new(16, 16)).unwrap().write_sectors;
        assert_ne!(shown, other);
    }
}
