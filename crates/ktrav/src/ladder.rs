//! "How fast can it go": a chapter's numbered kernel versions, each with its
//! launch plan as data, so the GPU suite launches exactly what the plan says
//! and the book can show it.
//!
//! A version is a kernel name, what its kernel assumes of its block, and a
//! plan function. Plans depend on the shape and, for grid-stride kernels, on
//! the number of multiprocessors. Why a version exists is said once, in its
//! `// vN:` comment in the `.cu` file, and `Chapter::ladder_text` shows it
//! from there.

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

/// A numbered version of a chapter's kernel: version N is the chapter's
/// N-th, its kernel named `..._vN_...`.
#[derive(Clone, Copy, Debug)]
pub struct Version {
    /// The `extern "C"` entry point.
    pub kernel: &'static str,
    /// What the kernel assumes of its block; every plan must meet it.
    pub block: BlockRule,
    /// Shared memory the kernel declares statically, in bytes (checked
    /// against ptxas's report by the chapter's kernels test).
    pub static_shared: u32,
    /// Its launch on a shape, given the device's multiprocessor count.
    pub plan: fn(Shape, u32) -> Result<Plan, GeometryError>,
}

/// What a kernel's code assumes of the block it is launched with, beyond
/// CUDA's own limits. The block its `__launch_bounds__` names is the most
/// threads it is compiled for; this says which shapes its indexing is
/// written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRule {
    /// Exactly this block: the kernel's loops are written for it.
    Exactly(Dim2),
    /// Any one-dimensional block: every thread strides by the whole grid.
    OneDimensional,
    /// A one-dimensional block of whole warps: the kernel works warp by
    /// warp, with shuffles across all 32 lanes.
    WholeWarps,
    /// A one-dimensional block of at least one warp: its first warp does
    /// work alone that needs all 32 lanes.
    AtLeastOneWarp,
}

/// Threads per warp.
pub const WARP: u32 = 32;

impl BlockRule {
    /// Whether a launch with `block` meets the rule.
    pub fn allows(self, block: Dim2) -> bool {
        match self {
            BlockRule::Exactly(b) => block == b,
            BlockRule::OneDimensional => block.y == 1,
            BlockRule::WholeWarps => block.y == 1 && block.x.is_multiple_of(WARP),
            BlockRule::AtLeastOneWarp => block.y == 1 && block.x >= WARP,
        }
    }

    /// `a 32x8 block exactly`, `any 1D block`, ...
    pub fn describe(self) -> String {
        match self {
            BlockRule::Exactly(b) => format!("a {b} block exactly"),
            BlockRule::OneDimensional => "any 1D block".into(),
            BlockRule::WholeWarps => "a 1D block of whole warps".into(),
            BlockRule::AtLeastOneWarp => "a 1D block of at least one warp".into(),
        }
    }
}

impl Version {
    /// The plan on `shape`, checked against the version's [`BlockRule`]: a
    /// plan that breaks it is refused before anything is launched.
    pub fn checked_plan(&self, shape: Shape, sms: u32) -> Result<Plan, PlanError> {
        let plan = (self.plan)(shape, sms).map_err(PlanError::Geometry)?;
        if self.block.allows(plan.cfg.block) {
            Ok(plan)
        } else {
            Err(PlanError::Block { kernel: self.kernel, block: plan.cfg.block, rule: self.block })
        }
    }

    /// The bytes one thread moves per global access, by the ladders'
    /// naming: a kernel whose name holds `float2` or `float4` (K.5's
    /// `add_v3_float4_x4` too) loads and stores that vector, any other one
    /// single `float`s.
    pub fn access_bytes(&self) -> u64 {
        if self.kernel.contains("float4") {
            16
        } else if self.kernel.contains("float2") {
            8
        } else {
            4
        }
    }
}

/// Why a version has no launch on a shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Geometry(GeometryError),
    /// The plan's block breaks the kernel's rule.
    #[error("{kernel}'s plan launches {block} blocks, but its kernel needs {}", rule.describe())]
    Block { kernel: &'static str, block: Dim2, rule: BlockRule },
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

/// The version of `versions` whose kernel is `kernel`, for a chapter that
/// borrows another's version by name.
pub fn version<'v>(versions: &'v [Version], kernel: &str) -> Option<&'v Version> {
    versions.iter().find(|v| v.kernel == kernel)
}

/// A plan with no dynamic shared memory and no work buffer.
pub fn plain(cfg: LaunchConfig) -> Plan {
    Plan { cfg, shared_bytes: 0, work_words: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_rules_allow_what_they_say() {
        let b = |x, y| Dim2::new(x, y);
        assert!(BlockRule::Exactly(b(32, 8)).allows(b(32, 8)) && !BlockRule::Exactly(b(32, 8)).allows(b(16, 16)));
        assert!(BlockRule::OneDimensional.allows(b(100, 1)) && !BlockRule::OneDimensional.allows(b(32, 2)));
        assert!(BlockRule::WholeWarps.allows(b(64, 1)) && !BlockRule::WholeWarps.allows(b(48, 1)));
        assert!(BlockRule::AtLeastOneWarp.allows(b(33, 1)) && !BlockRule::AtLeastOneWarp.allows(b(31, 1)));
        let v = Version {
            kernel: "k_v1",
            block: BlockRule::WholeWarps,
            static_shared: 0,
            plan: |shape, sms| grid_stride(shape.elements(), 48, 1, sms).map(plain),
        };
        let refused = v.checked_plan(Shape::new(10, 10), 132).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "k_v1's plan launches 48x1 blocks, but its kernel needs a 1D block of whole warps"
        );
        assert_eq!(v.checked_plan(Shape::new(0, 10), 132).unwrap_err(), PlanError::Geometry(GeometryError::ZeroExtent));
    }

    #[test]
    fn access_bytes_follow_the_kernel_names_vector() {
        const FLOATS: Version = Version {
            kernel: "t_v1_32x8",
            block: BlockRule::OneDimensional,
            static_shared: 0,
            plan: |shape, sms| grid_stride(shape.elements(), 256, 1, sms).map(plain),
        };
        let named = |kernel| Version { kernel, ..FLOATS };
        assert_eq!(FLOATS.access_bytes(), 4);
        assert_eq!(named("add_v3_float4_x4").access_bytes(), 16);
        assert_eq!(named("t_v2_64x64_float2").access_bytes(), 8);
        assert_eq!(named("t_v3_64x64_float4").access_bytes(), 16);
        assert_eq!(named("copy_v3_float4_x4").access_bytes(), 16);
    }

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
