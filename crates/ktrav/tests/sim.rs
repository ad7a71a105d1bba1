//! The simulator's index arithmetic and block placement, through the public
//! API: CUDA's built-in variables combine as the kernels combine them, and
//! every launch function puts each linear block index at the same
//! `(blockIdx.x, blockIdx.y)`.

use ktrav::{launch, launch_phased, launch_stepped, BlockOrder, Dim2, LaunchConfig, Thread, ThreadOrder};

#[test]
fn a_threads_indices_combine_as_cudas_do() {
    let t = Thread {
        block_idx: Dim2::new(2, 3),
        thread_idx: Dim2::new(5, 1),
        block_dim: Dim2::new(8, 4),
        grid_dim: Dim2::new(6, 7),
    };
    assert_eq!(t.global_x(), 2 * 8 + 5);
    assert_eq!(t.global_y(), 3 * 4 + 1);
    assert_eq!(t.linear_in_block(), 8 + 5);
    assert_eq!(t.linear_block(), 3 * 6 + 2);
}

/// Over a whole launch the linear indices are each used once: every
/// thread of a block has its own `linear_in_block`, and the blocks run
/// forwards in `linear_block` order.
#[test]
fn linear_indices_number_threads_and_blocks_once_each() {
    let cfg = LaunchConfig { grid: Dim2::new(3, 2), block: Dim2::new(4, 3) };
    let mut order = Vec::new();
    let mut in_block = vec![Vec::new(); 6];
    launch(&cfg, &BlockOrder::Forward, |t| {
        if t.linear_in_block() == 0 {
            order.push(t.linear_block());
        }
        in_block[t.linear_block() as usize].push(t.linear_in_block());
    });
    assert_eq!(order, (0..6).collect::<Vec<_>>());
    for ids in in_block {
        assert_eq!(ids, (0..12).collect::<Vec<_>>());
    }
}

/// The block each launch function runs for linear index `i` of a 3x2 grid.
#[test]
fn every_launch_function_places_blocks_alike() {
    let cfg = LaunchConfig { grid: Dim2::new(3, 2), block: Dim2::new(2, 1) };
    let expect: Vec<Dim2> = (0..2).flat_map(|y| (0..3).map(move |x| Dim2::new(x, y))).collect();
    let firsts = |log: Vec<Thread>| -> Vec<Dim2> {
        log.iter().filter(|t| t.thread_idx == Dim2::new(0, 0)).map(|t| t.block_idx).collect()
    };
    let mut log = Vec::new();
    launch(&cfg, &BlockOrder::Forward, |t| log.push(t));
    assert_eq!(firsts(log), expect);
    let mut log = Vec::new();
    launch_phased(&cfg, &BlockOrder::Forward, 1, || (), |t, _, _: &mut ()| log.push(t));
    assert_eq!(firsts(log), expect);
    for threads in ThreadOrder::ALL {
        let mut log = Vec::new();
        launch_stepped(&cfg, &BlockOrder::Forward, threads, 1, |_| false, || (), |t, _, _: &mut ()| log.push(t));
        assert_eq!(firsts(log), expect, "{threads:?}");
    }
    // Reverse runs the same blocks last to first.
    let mut log = Vec::new();
    launch_stepped(
        &cfg,
        &BlockOrder::Reverse,
        ThreadOrder::Forward,
        1,
        |_| false,
        || (),
        |t, _, _: &mut ()| log.push(t),
    );
    assert_eq!(firsts(log), expect.iter().rev().copied().collect::<Vec<_>>());
}

/// Steps split at the barriers: with barriers after steps 0 and 2 of four,
/// every thread finishes [0], then [1, 2], then [3] before any goes on.
#[test]
fn barriers_split_steps_into_segments() {
    let cfg = LaunchConfig { grid: Dim2::new(1, 1), block: Dim2::new(2, 1) };
    let mut log = Vec::new();
    launch_stepped(
        &cfg,
        &BlockOrder::Forward,
        ThreadOrder::Forward,
        4,
        |s| s == 0 || s == 2,
        || (),
        |t, s, _: &mut ()| log.push((t.thread_idx.x, s)),
    );
    assert_eq!(log, [(0, 0), (1, 0), (0, 1), (0, 2), (1, 1), (1, 2), (0, 3), (1, 3)]);
}
