//! Launch geometry: how many blocks of what shape cover a 2D extent.
//!
//! The convention used throughout the book is CUDA's: `x` runs along
//! columns (the contiguous axis of a row-major matrix) and `y` along rows.

use std::fmt;

/// CUDA's limit on `gridDim.x` (2^31 - 1).
pub const MAX_GRID_X: u64 = (1 << 31) - 1;
/// CUDA's limit on `gridDim.y` and `gridDim.z`.
pub const MAX_GRID_Y: u64 = 65_535;
/// CUDA's limit on threads per block.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;

/// A two-dimensional size or index, as in CUDA's `dim3` with `z = 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim2 {
    pub x: u32,
    pub y: u32,
}

impl Dim2 {
    pub const fn new(x: u32, y: u32) -> Self {
        Dim2 { x, y }
    }

    /// Number of points in an `x` by `y` box.
    pub const fn count(self) -> u64 {
        self.x as u64 * self.y as u64
    }
}

impl fmt::Display for Dim2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.x, self.y)
    }
}

/// `ceil(n / d)`: the number of blocks of size `d` needed to cover `n`.
///
/// # Panics
/// Panics if `d == 0`; callers validate block sizes first.
pub const fn ceil_div(n: u64, d: u64) -> u64 {
    n.div_ceil(d)
}

/// Why a launch configuration could not be formed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    #[error("a matrix dimension is zero")]
    ZeroExtent,
    #[error("a block dimension is zero")]
    ZeroBlock,
    #[error("a block of {threads} threads exceeds CUDA's limit of {MAX_THREADS_PER_BLOCK}")]
    BlockTooLarge { threads: u64 },
    #[error("the grid needs {blocks} blocks along {axis}, more than CUDA's limit of {limit}")]
    GridTooLarge { axis: char, blocks: u64, limit: u64 },
}

/// Threads launched beyond the extent they cover, per axis and in total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waste {
    /// Surplus threads along x in one row of threads.
    pub x: u64,
    /// Surplus threads along y in one column of threads.
    pub y: u64,
    /// Every launched thread that maps outside the extent.
    pub total: u64,
}

/// The shape of a matrix: `rows` by `cols`. Geometry takes a matrix shape
/// only as a `Shape`, so rows and columns cannot be swapped by argument order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub rows: u64,
    pub cols: u64,
}

impl Shape {
    pub const fn new(rows: u64, cols: u64) -> Self {
        Shape { rows, cols }
    }

    /// A single row of `n` elements: the shape of a 1D launch's extent.
    pub const fn row(n: u64) -> Self {
        Shape { rows: 1, cols: n }
    }

    /// The same matrix with rows and columns exchanged.
    pub const fn transposed(self) -> Self {
        Shape { rows: self.cols, cols: self.rows }
    }

    /// `rows * cols`, or `None` if it overflows 64 bits.
    pub fn checked_elements(self) -> Option<u64> {
        self.rows.checked_mul(self.cols)
    }

    /// `rows * cols`.
    ///
    /// # Panics
    /// Panics on overflow; sizes from the command line are validated first.
    pub fn elements(self) -> u64 {
        self.checked_elements().expect("matrix shape overflows 64 bits")
    }

    /// The bytes a matrix of `elem_bytes`-byte elements takes, or `None` on
    /// overflow.
    pub fn checked_bytes(self, elem_bytes: u64) -> Option<u64> {
        self.checked_elements()?.checked_mul(elem_bytes)
    }

    /// True when either side is zero.
    pub const fn is_empty(self) -> bool {
        self.rows == 0 || self.cols == 0
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// A 2D grid of 2D blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: Dim2,
    pub block: Dim2,
}

impl LaunchConfig {
    /// Checks a block shape against CUDA's per-block limit.
    pub fn check_block(block: Dim2) -> Result<(), GeometryError> {
        if block.x == 0 || block.y == 0 {
            return Err(GeometryError::ZeroBlock);
        }
        if block.count() > MAX_THREADS_PER_BLOCK {
            return Err(GeometryError::BlockTooLarge { threads: block.count() });
        }
        Ok(())
    }

    // ANCHOR: covering
    /// The smallest grid of `block`-shaped blocks covering `shape`, with x
    /// along columns and y along rows: one ceiling division per axis.
    pub fn covering(shape: Shape, block: Dim2) -> Result<Self, GeometryError> {
        Self::check_block(block)?;
        if shape.is_empty() {
            return Err(GeometryError::ZeroExtent);
        }
        let gx = ceil_div(shape.cols, block.x as u64);
        let gy = ceil_div(shape.rows, block.y as u64);
        if gx > MAX_GRID_X {
            return Err(GeometryError::GridTooLarge { axis: 'x', blocks: gx, limit: MAX_GRID_X });
        }
        if gy > MAX_GRID_Y {
            return Err(GeometryError::GridTooLarge { axis: 'y', blocks: gy, limit: MAX_GRID_Y });
        }
        Ok(LaunchConfig { grid: Dim2::new(gx as u32, gy as u32), block })
    }
    // ANCHOR_END: covering

    // ANCHOR: covering_strided
    /// Like [`LaunchConfig::covering`], but a tall shape never fails:
    /// `gridDim.y` is capped at CUDA's limit of 65 535 and each block walks
    /// its rows of blocks in a grid-stride loop (see
    /// [`crate::Thread::strided_block_rows`]). Only `gridDim.x` can still
    /// be too large.
    pub fn covering_strided(shape: Shape, block: Dim2) -> Result<Self, GeometryError> {
        Self::tiles_strided(shape, block, block)
    }

    /// The grid-stride launch of a tiled kernel whose block of `block`
    /// threads handles a `tile`-sized piece of the matrix (`tile.x` columns,
    /// `tile.y` rows): `gridDim = (ceil(cols / tile.x), min(ceil(rows /
    /// tile.y), 65535))`, each block walking down its tile column in steps
    /// of `gridDim.y`. [`LaunchConfig::covering_strided`] is the case of one
    /// element per thread, `tile == block`.
    pub fn tiles_strided(shape: Shape, tile: Dim2, block: Dim2) -> Result<Self, GeometryError> {
        Self::check_block(block)?;
        if shape.is_empty() {
            return Err(GeometryError::ZeroExtent);
        }
        if tile.x == 0 || tile.y == 0 {
            return Err(GeometryError::ZeroBlock);
        }
        let gx = ceil_div(shape.cols, tile.x as u64);
        if gx > MAX_GRID_X {
            return Err(GeometryError::GridTooLarge { axis: 'x', blocks: gx, limit: MAX_GRID_X });
        }
        let gy = ceil_div(shape.rows, tile.y as u64).min(MAX_GRID_Y);
        Ok(LaunchConfig { grid: Dim2::new(gx as u32, gy as u32), block })
    }

    /// How many times a block goes round its grid-stride loop over the rows
    /// of `shape` (1 when the grid covers them in one pass).
    pub fn rounds(&self, shape: Shape) -> u64 {
        ceil_div(ceil_div(shape.rows, self.block.y as u64), self.grid.y as u64)
    }
    // ANCHOR_END: covering_strided

    /// Threads launched along x (`gridDim.x * blockDim.x`).
    pub fn threads_x(&self) -> u64 {
        self.grid.x as u64 * self.block.x as u64
    }

    /// Threads launched along y (`gridDim.y * blockDim.y`).
    pub fn threads_y(&self) -> u64 {
        self.grid.y as u64 * self.block.y as u64
    }

    /// Every thread the launch creates.
    pub fn total_threads(&self) -> u64 {
        self.threads_x() * self.threads_y()
    }

    /// Number of blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.count()
    }

    /// Threads that fall outside `shape` (x along columns, y along rows).
    pub fn waste(&self, shape: Shape) -> Waste {
        Waste {
            x: self.threads_x().saturating_sub(shape.cols),
            y: self.threads_y().saturating_sub(shape.rows),
            total: self.total_threads().saturating_sub(shape.rows.saturating_mul(shape.cols)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceiling_division_covers_exactly() {
        let shape = Shape::new(37, 61);
        let cfg = LaunchConfig::covering(shape, Dim2::new(16, 16)).unwrap();
        assert_eq!(cfg.grid, Dim2::new(4, 3));
        let w = cfg.waste(shape);
        assert_eq!((w.x, w.y, w.total), (3, 11, 64 * 48 - 61 * 37));
    }

    #[test]
    fn limits_are_enforced() {
        assert_eq!(
            LaunchConfig::covering(Shape::new(65_536, 1), Dim2::new(1, 1)),
            Err(GeometryError::GridTooLarge { axis: 'y', blocks: 65_536, limit: MAX_GRID_Y })
        );
        assert!(LaunchConfig::covering(Shape::row(1 << 26), Dim2::new(256, 1)).is_ok());
        assert_eq!(LaunchConfig::check_block(Dim2::new(64, 32)), Err(GeometryError::BlockTooLarge { threads: 2048 }));
        assert_eq!(LaunchConfig::covering(Shape::new(3, 0), Dim2::new(1, 1)), Err(GeometryError::ZeroExtent));
        assert_eq!(LaunchConfig::covering(Shape::new(3, 3), Dim2::new(0, 1)), Err(GeometryError::ZeroBlock));
    }

    #[test]
    fn strided_launch_caps_y_and_counts_rounds() {
        let tall_shape = Shape::new(1 << 26, 1);
        let tall = LaunchConfig::covering_strided(tall_shape, Dim2::new(32, 32)).unwrap();
        assert_eq!(tall.grid, Dim2::new(1, 65_535));
        assert_eq!(tall.rounds(tall_shape), 33); // 2^21 rows of blocks / 65535, rounded up
        let shape = Shape::new(37, 61);
        let small = LaunchConfig::covering_strided(shape, Dim2::new(16, 16)).unwrap();
        assert_eq!(small, LaunchConfig::covering(shape, Dim2::new(16, 16)).unwrap());
        assert_eq!(small.rounds(shape), 1);
        assert!(LaunchConfig::covering_strided(Shape::row(1 << 40), Dim2::new(1, 1)).is_err());
    }

    #[test]
    fn shapes_know_their_size() {
        let s = Shape::new(3, 5);
        assert_eq!((s.elements(), s.transposed(), s.to_string()), (15, Shape::new(5, 3), "3x5".to_string()));
        assert_eq!(Shape::new(1 << 40, 1 << 40).checked_elements(), None);
        assert_eq!(Shape::new(1 << 31, 1 << 31).checked_bytes(4), None);
        assert_eq!(Shape::new(1 << 31, 1 << 31).checked_bytes(2), Some(1 << 63));
    }
}
