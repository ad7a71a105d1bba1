//! The numbers K.3's page quotes, computed here (see `book/values.txt`).

use crate::{traffic, Mapping, SOURCE_CASES};
use ktrav::{Dim2, Shape};

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

pub fn values() -> Vec<(&'static str, String)> {
    let c = SOURCE_CASES[3];
    let (col, row) = sectors_per_warp(c.shape, c.block);
    vec![
        ("k3.sectors.x_to_col_per_warp", format!("{col:.2}")),
        ("k3.sectors.x_to_row_per_warp", format!("{row:.2}")),
        ("k3.sectors.ratio", format!("{:.2}", row / col)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_block_changes_the_swapped_count() {
        let c = SOURCE_CASES[3];
        assert_ne!(sectors_per_warp(c.shape, c.block).1, sectors_per_warp(c.shape, Dim2::new(8, 32)).1);
    }
}
