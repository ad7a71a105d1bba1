//! The grid simulator: runs a kernel body once per (block, thread), the way
//! a CUDA launch would, but sequentially and in an order the caller picks; a
//! body with barriers runs phase by phase ([`launch_phased`]).
//!
//! This is the only place in the book where the four-deep
//! `block.y / block.x / thread.y / thread.x` loop nest is written. A chapter
//! expresses its kernel as a closure over a [`Thread`], so the Rust body reads
//! line for line beside the `.cu` kernel it mirrors.
//!
//! Two properties of real hardware are modelled on purpose:
//!
//! * **Block order is not promised.** CUDA guarantees nothing about the order
//!   in which blocks run. [`BlockOrder`] lets a chapter run the same launch
//!   forwards, backwards, in a seeded shuffle, or in an explicit order, so a
//!   result that depends on the order shows up as a difference.
//! * **Barriers split a block into phases.** `__syncthreads()` means every
//!   thread of a block finishes the code before it before any thread runs the
//!   code after it. [`launch_phased`] runs phase 0 for every thread of a
//!   block, then phase 1 for every thread, and so on, with per-block shared
//!   state that lives for that block only (CUDA's `__shared__`).

use crate::geometry::{Dim2, LaunchConfig};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

// ANCHOR: thread
/// What a kernel body knows about itself: CUDA's four built-in variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thread {
    pub block_idx: Dim2,
    pub thread_idx: Dim2,
    pub block_dim: Dim2,
    pub grid_dim: Dim2,
}

impl Thread {
    /// `blockIdx.x * blockDim.x + threadIdx.x`, computed in 64 bits.
    pub fn global_x(&self) -> u64 {
        self.block_idx.x as u64 * self.block_dim.x as u64 + self.thread_idx.x as u64
    }

    /// `blockIdx.y * blockDim.y + threadIdx.y`, computed in 64 bits.
    pub fn global_y(&self) -> u64 {
        self.block_idx.y as u64 * self.block_dim.y as u64 + self.thread_idx.y as u64
    }

    /// The rows of blocks this block handles in a grid-stride loop over
    /// `extent_y` rows: `for (by = blockIdx.y; by < ceil(extent_y / blockDim.y);
    /// by += gridDim.y)`. With a grid that covers the extent in one pass this
    /// is just `blockIdx.y`.
    pub fn strided_block_rows(&self, extent_y: u64) -> impl Iterator<Item = u64> {
        let block_rows = extent_y.div_ceil(self.block_dim.y as u64);
        (self.block_idx.y as u64..block_rows).step_by(self.grid_dim.y as usize)
    }

    /// Linear thread index inside the block (`threadIdx.y * blockDim.x + threadIdx.x`),
    /// the index that decides which warp a thread belongs to.
    pub fn linear_in_block(&self) -> u32 {
        self.thread_idx.y * self.block_dim.x + self.thread_idx.x
    }

    /// Linear block index (`blockIdx.y * gridDim.x + blockIdx.x`).
    pub fn linear_block(&self) -> u64 {
        self.block_idx.y as u64 * self.grid_dim.x as u64 + self.block_idx.x as u64
    }
}
// ANCHOR_END: thread

/// The order in which the simulator runs a grid's blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockOrder {
    /// Linear block index 0, 1, 2, ... (row of blocks by row of blocks).
    Forward,
    /// The reverse of [`BlockOrder::Forward`].
    Reverse,
    /// A permutation drawn from a ChaCha8 generator with this seed: the same
    /// seed gives the same order on every machine and every run.
    Shuffled(u64),
    /// An explicit order of linear block indices; it must be a permutation of
    /// `0..blocks`.
    Explicit(Vec<u64>),
}

impl BlockOrder {
    /// The linear block indices, in the order they will run.
    ///
    /// # Panics
    /// Panics if an [`BlockOrder::Explicit`] order is not a permutation of
    /// `0..blocks`: that is a bug in the caller, not bad user input.
    pub fn sequence(&self, blocks: u64) -> Vec<u64> {
        match self {
            BlockOrder::Forward => (0..blocks).collect(),
            BlockOrder::Reverse => (0..blocks).rev().collect(),
            BlockOrder::Shuffled(seed) => {
                let mut ids: Vec<u64> = (0..blocks).collect();
                ids.shuffle(&mut ChaCha8Rng::seed_from_u64(*seed));
                ids
            }
            BlockOrder::Explicit(ids) => {
                let mut seen = vec![false; blocks as usize];
                assert_eq!(ids.len() as u64, blocks, "explicit block order has the wrong length");
                for &id in ids {
                    assert!(id < blocks && !seen[id as usize], "explicit block order is not a permutation");
                    seen[id as usize] = true;
                }
                ids.clone()
            }
        }
    }
}

/// Runs `kernel` once for every thread of every block, blocks in `order`,
/// threads within a block in `threadIdx` order (x fastest).
pub fn launch(cfg: &LaunchConfig, order: &BlockOrder, mut kernel: impl FnMut(Thread)) {
    launch_phased(cfg, order, 1, || (), |t, _phase, _shared: &mut ()| kernel(t));
}

/// Runs a kernel whose body is split by `phases - 1` barriers.
///
/// For each block (in `order`): `shared()` creates the block's shared
/// memory, then phase 0 runs for every thread of the block, then phase 1 for
/// every thread, and so on. The phase boundary is exactly a `__syncthreads()`.
// ANCHOR: launch_phased
pub fn launch_phased<S>(
    cfg: &LaunchConfig,
    order: &BlockOrder,
    phases: usize,
    mut shared: impl FnMut() -> S,
    mut kernel: impl FnMut(Thread, usize, &mut S),
) {
    let grid_dim = cfg.grid;
    let block_dim = cfg.block;
    for linear in order.sequence(cfg.blocks()) {
        let block_idx = Dim2::new((linear % grid_dim.x as u64) as u32, (linear / grid_dim.x as u64) as u32);
        let mut block_shared = shared();
        for phase in 0..phases {
            for ty in 0..block_dim.y {
                for tx in 0..block_dim.x {
                    let t = Thread { block_idx, thread_idx: Dim2::new(tx, ty), block_dim, grid_dim };
                    kernel(t, phase, &mut block_shared);
                }
            }
        }
    }
}
// ANCHOR_END: launch_phased

/// The order in which the threads of a block run between two barriers.
///
/// Real threads run concurrently; code that is right only for some
/// interleaving (a read of shared memory with no `__syncthreads()` before
/// it, a read of a cell another thread is writing) gives different results
/// under these three, so a race shows in a sequential simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadOrder {
    /// Each thread runs every step up to the next barrier, threads in
    /// `threadIdx` order (x fastest).
    Forward,
    /// The same, threads in the reverse order.
    Reverse,
    /// Lock-step: every thread runs step 0, then every thread step 1, and
    /// so on, as if each statement were followed by a barrier.
    LockStep,
}

impl ThreadOrder {
    pub const ALL: [ThreadOrder; 3] = [ThreadOrder::Forward, ThreadOrder::Reverse, ThreadOrder::LockStep];
}

/// Runs a kernel written as `steps` numbered statements, with a
/// `__syncthreads()` after every step `s` for which `barrier_after(s)`
/// holds. Blocks run in `order`; within a block, the threads between two
/// barriers interleave as `threads` says. `shared()` makes each block's
/// shared memory, as in [`launch_phased`].
// ANCHOR: launch_stepped
pub fn launch_stepped<S>(
    cfg: &LaunchConfig,
    order: &BlockOrder,
    threads: ThreadOrder,
    steps: usize,
    barrier_after: impl Fn(usize) -> bool,
    mut shared: impl FnMut() -> S,
    mut kernel: impl FnMut(Thread, usize, &mut S),
) {
    let (grid_dim, block_dim) = (cfg.grid, cfg.block);
    let mut ids: Vec<Dim2> = (0..block_dim.y).flat_map(|y| (0..block_dim.x).map(move |x| Dim2::new(x, y))).collect();
    if threads == ThreadOrder::Reverse {
        ids.reverse();
    }
    // The steps between barriers: [start, end) ranges.
    let mut segments = Vec::new();
    let mut start = 0;
    for s in 0..steps {
        if barrier_after(s) || s + 1 == steps {
            segments.push(start..s + 1);
            start = s + 1;
        }
    }
    for linear in order.sequence(cfg.blocks()) {
        let block_idx = Dim2::new((linear % grid_dim.x as u64) as u32, (linear / grid_dim.x as u64) as u32);
        let mut block_shared = shared();
        let thread = |thread_idx| Thread { block_idx, thread_idx, block_dim, grid_dim };
        for seg in &segments {
            if threads == ThreadOrder::LockStep {
                for s in seg.clone() {
                    for &id in &ids {
                        kernel(thread(id), s, &mut block_shared);
                    }
                }
            } else {
                for &id in &ids {
                    for s in seg.clone() {
                        kernel(thread(id), s, &mut block_shared);
                    }
                }
            }
        }
    }
}
// ANCHOR_END: launch_stepped

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn orders_are_permutations_and_deterministic() {
        assert_eq!(BlockOrder::Reverse.sequence(4), vec![3, 2, 1, 0]);
        let a = BlockOrder::Shuffled(7).sequence(100);
        assert_eq!(a, BlockOrder::Shuffled(7).sequence(100));
        assert_ne!(a, BlockOrder::Forward.sequence(100));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, BlockOrder::Forward.sequence(100));
    }

    #[test]
    fn barrier_separates_phases_within_a_block() {
        let cfg = LaunchConfig { grid: Dim2::new(2, 1), block: Dim2::new(3, 2) };
        let mut log = Vec::new();
        launch_phased(
            &cfg,
            &BlockOrder::Forward,
            2,
            || 0u32,
            |t, phase, writes: &mut u32| {
                if phase == 0 {
                    *writes += 1;
                } else {
                    // Every thread of this block wrote before any thread reads.
                    assert_eq!(*writes, 6);
                }
                log.push((t.block_idx.x, phase));
            },
        );
        let expect: Vec<_> = [(0, 0), (0, 1), (1, 0), (1, 1)].iter().flat_map(|&p| std::iter::repeat_n(p, 6)).collect();
        assert_eq!(log, expect);
    }

    #[test]
    fn grid_stride_rows_cover_a_tall_extent_once() {
        // 10 rows of blocks, but only 3 launched along y.
        let cfg = LaunchConfig { grid: Dim2::new(1, 3), block: Dim2::new(1, 2) };
        let mut seen = vec![0; 10];
        launch(&cfg, &BlockOrder::Reverse, |t| {
            if t.thread_idx.y == 0 {
                for by in t.strided_block_rows(20) {
                    seen[by as usize] += 1;
                }
            }
        });
        assert_eq!(seen, vec![1; 10]);
    }

    #[test]
    fn thread_orders_interleave_steps_as_named() {
        let cfg = LaunchConfig { grid: Dim2::new(1, 1), block: Dim2::new(2, 1) };
        let run = |threads, barrier: bool| {
            let mut log = Vec::new();
            launch_stepped(
                &cfg,
                &BlockOrder::Forward,
                threads,
                2,
                |_| barrier,
                || (),
                |t, s, _: &mut ()| log.push((t.thread_idx.x, s)),
            );
            log
        };
        assert_eq!(run(ThreadOrder::Forward, false), [(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert_eq!(run(ThreadOrder::Reverse, false), [(1, 0), (1, 1), (0, 0), (0, 1)]);
        assert_eq!(run(ThreadOrder::LockStep, false), [(0, 0), (1, 0), (0, 1), (1, 1)]);
        // A barrier after step 0 makes every order finish step 0 first.
        assert_eq!(run(ThreadOrder::Forward, true), [(0, 0), (1, 0), (0, 1), (1, 1)]);
        assert_eq!(run(ThreadOrder::Reverse, true), [(1, 0), (0, 0), (1, 1), (0, 1)]);
    }

    proptest! {
        /// Every point of any extent is visited exactly once by the
        /// in-bounds threads, whatever the block shape and block order.
        #[test]
        fn covering_launch_visits_each_point_once(
            ex in 1u64..80, ey in 1u64..80, bx in 1u32..40, by in 1u32..20, seed in any::<u64>()
        ) {
            let cfg = LaunchConfig::covering(crate::Shape::new(ey, ex), Dim2::new(bx, by)).unwrap();
            let mut hits = vec![0u8; (ex * ey) as usize];
            let mut launched = 0u64;
            launch(&cfg, &BlockOrder::Shuffled(seed), |t| {
                launched += 1;
                let (x, y) = (t.global_x(), t.global_y());
                if x < ex && y < ey {
                    hits[(y * ex + x) as usize] += 1;
                }
            });
            prop_assert!(hits.iter().all(|&h| h == 1));
            prop_assert_eq!(launched, cfg.total_threads());
            prop_assert_eq!(cfg.waste(crate::Shape::new(ey, ex)).total, launched - ex * ey);
        }
    }
}
