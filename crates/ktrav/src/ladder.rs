//! "How fast can it go": a chapter's numbered kernel versions, each with its
//! launch plan as data, so the GPU suite launches exactly what the plan says
//! and the book can show it.
//!
//! A version is a kernel name, the one-line reason it exists (taken from
//! its comment in the `.cu` file) and a plan function. Plans depend on the
//! shape and, for grid-stride kernels, on the number of multiprocessors.

use crate::geometry::{ceil_div, Dim2, GeometryError, LaunchConfig, Shape, MAX_GRID_X};

/// One launch of a version, as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub cfg: LaunchConfig,
    /// Dynamic shared memory per block (the versions declare their tiles
    /// statically, so this is usually 0).
    pub shared_bytes: u32,
    /// Length, in 64-bit words, of the work buffer the kernel needs (0 for
    /// none). It is zeroed once when allocated and never shared by two
    /// launches in flight.
    pub work_words: u64,
}

/// A numbered version of a chapter's kernel.
#[derive(Clone, Copy, Debug)]
pub struct Version {
    /// The `extern "C"` entry point.
    pub kernel: &'static str,
    /// What it changes and why, in one line.
    pub why: &'static str,
    /// Shared memory the kernel declares statically, in bytes (checked
    /// against ptxas's report by the chapter's kernels test).
    pub static_shared: u32,
    /// Its launch on a shape, given the device's multiprocessor count.
    pub plan: fn(Shape, u32) -> Result<Plan, GeometryError>,
}

/// Blocks per multiprocessor the grid-stride versions are launched with.
pub const BLOCKS_PER_SM: u64 = 8;

/// A 1D grid-stride launch over `work` items, each block of `block`
/// threads taking `per_thread` items per round: `min(ceil(work / (block *
/// per_thread)), sms * 8)` blocks. Any grid of at least one block is
/// correct for such a kernel; this one just fills the card.
pub fn grid_stride(work: u64, block: u32, per_thread: u64, sms: u32) -> Result<LaunchConfig, GeometryError> {
    if work == 0 {
        return Err(GeometryError::ZeroExtent);
    }
    LaunchConfig::check_block(Dim2::new(block, 1))?;
    let blocks = ceil_div(work, block as u64 * per_thread).min(sms.max(1) as u64 * BLOCKS_PER_SM).max(1);
    Ok(LaunchConfig { grid: Dim2::new(blocks.min(MAX_GRID_X) as u32, 1), block: Dim2::new(block, 1) })
}

/// A 2D tiled launch: `tile x tile` tiles of a `shape` matrix, one block of
/// `block` threads per tile, walking down its tile column in steps of
/// `gridDim.y` (see [`LaunchConfig::tiles_strided`]).
pub fn tiles_strided(shape: Shape, tile: u32, block: Dim2) -> Result<LaunchConfig, GeometryError> {
    LaunchConfig::tiles_strided(shape, Dim2::new(tile, tile), block)
}

/// The shapes every version is validated on before it is timed: 1x1, one
/// row, one column, ragged edges on both axes, a tall matrix whose 32- and
/// 64-row tiles pass `gridDim.y`'s 65 535, a wide one of 2^26 elements,
/// and with `large` a 46341 x 46343 matrix, past 2^31 elements.
pub fn shapes(large: bool) -> Vec<Shape> {
    let mut v = vec![
        Shape::new(1, 1),
        Shape::new(1, 1000),
        Shape::new(1000, 1),
        Shape::new(37, 61),
        Shape::new(1000, 1001),
        Shape::new(8191, 8193),
        Shape::new(4_200_007, 5),
        Shape::new(1, 1 << 26),
    ];
    if large {
        v.push(Shape::new(46_341, 46_343));
    }
    v
}

/// A plan with no dynamic shared memory and no work buffer.
pub fn plain(cfg: LaunchConfig) -> Plan {
    Plan { cfg, shared_bytes: 0, work_words: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_stride_fills_the_card_and_no_more() {
        let cfg = grid_stride(8192 * 8192, 256, 4, 132).unwrap();
        assert_eq!((cfg.grid, cfg.block), (Dim2::new(132 * 8, 1), Dim2::new(256, 1)));
        assert_eq!(grid_stride(1, 256, 16, 132).unwrap().grid, Dim2::new(1, 1));
        assert_eq!(grid_stride(1000, 256, 1, 132).unwrap().grid, Dim2::new(4, 1));
        assert!(grid_stride(0, 256, 1, 132).is_err());
    }

    #[test]
    fn tiles_cap_grid_y() {
        let cfg = tiles_strided(Shape::new(1 << 26, 1), 64, Dim2::new(32, 8)).unwrap();
        assert_eq!(cfg.grid, Dim2::new(1, 65_535));
        let cfg = tiles_strided(Shape::new(8191, 8193), 32, Dim2::new(32, 8)).unwrap();
        assert_eq!(cfg.grid, Dim2::new(257, 256));
    }
}
