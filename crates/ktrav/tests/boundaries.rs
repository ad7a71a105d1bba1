//! The edges of the host model, through its public API: launches exactly at
//! CUDA's grid limits are accepted and one block past them refused (or, for
//! a grid-stride launch, capped), the battery's tall shape reaches past
//! gridDim.y's limit on the axis each kind of launch maps to y, and the
//! judge tells a stray write before the output from one after it.

use ktrav::geometry::{GeometryError, MAX_GRID_X, MAX_GRID_Y, MAX_THREADS_PER_BLOCK};
use ktrav::lab::twin::{Twin, Twins};
use ktrav::lab::{battery, judge, launches, Arg, Elem, Exercise, Expected, Launch, Verdict, GUARD_WORDS};
use ktrav::{ceil_div, Dim2, LaunchConfig, Shape, POISON_WORD};

#[test]
fn the_limits_are_cudas() {
    assert_eq!(MAX_GRID_X, 2_147_483_647);
    assert_eq!(MAX_GRID_X, i32::MAX as u64);
    assert_eq!(MAX_GRID_Y, 65_535);
    assert_eq!(MAX_GRID_Y, u16::MAX as u64);
    assert_eq!(MAX_THREADS_PER_BLOCK, 1024);
}

#[test]
fn refusals_say_which_limit_in_one_line() {
    let e = LaunchConfig::covering(Shape::new(1, MAX_GRID_X + 1), Dim2::new(1, 1)).unwrap_err();
    assert_eq!(e.to_string(), "the grid needs 2147483648 blocks along x, more than CUDA's limit of 2147483647");
    let e = LaunchConfig::covering(Shape::new(MAX_GRID_Y + 1, 1), Dim2::new(1, 1)).unwrap_err();
    assert_eq!(e.to_string(), "the grid needs 65536 blocks along y, more than CUDA's limit of 65535");
    assert_eq!(
        GeometryError::BlockTooLarge { threads: 2048 }.to_string(),
        "a block of 2048 threads exceeds CUDA's limit of 1024"
    );
    assert_eq!(GeometryError::ZeroExtent.to_string(), "a matrix dimension is zero");
    assert_eq!(GeometryError::ZeroBlock.to_string(), "a block dimension is zero");
    assert_eq!((Dim2::new(32, 8).to_string(), Shape::new(3, 5).to_string()), ("32x8".into(), "3x5".into()));
}

fn too_large(axis: char, blocks: u64, limit: u64) -> Result<LaunchConfig, GeometryError> {
    Err(GeometryError::GridTooLarge { axis, blocks, limit })
}

/// Blocks of one thread and of a full warp row, so the ceiling division
/// is exercised both exact and ragged.
const BLOCKS: [Dim2; 3] = [Dim2::new(1, 1), Dim2::new(32, 8), Dim2::new(16, 64)];

#[test]
fn covering_accepts_exactly_the_x_limit_and_refuses_one_block_more() {
    for block in BLOCKS {
        let bx = block.x as u64;
        let at = Shape::new(1, MAX_GRID_X * bx);
        let cfg = LaunchConfig::covering(at, block).unwrap();
        assert_eq!(cfg.grid, Dim2::new(MAX_GRID_X as u32, 1), "{block}");
        // The last block is ragged but still within the limit.
        let ragged = Shape::new(1, (MAX_GRID_X - 1) * bx + 1);
        assert_eq!(LaunchConfig::covering(ragged, block).unwrap().grid.x as u64, MAX_GRID_X, "{block}");
        // One more column needs one more block.
        let past = Shape::new(1, MAX_GRID_X * bx + 1);
        assert_eq!(LaunchConfig::covering(past, block), too_large('x', MAX_GRID_X + 1, MAX_GRID_X), "{block}");
    }
}

#[test]
fn covering_accepts_exactly_the_y_limit_and_refuses_one_block_more() {
    for block in BLOCKS {
        let by = block.y as u64;
        let at = Shape::new(MAX_GRID_Y * by, 1);
        assert_eq!(LaunchConfig::covering(at, block).unwrap().grid, Dim2::new(1, MAX_GRID_Y as u32), "{block}");
        let past = Shape::new(MAX_GRID_Y * by + 1, 1);
        assert_eq!(LaunchConfig::covering(past, block), too_large('y', MAX_GRID_Y + 1, MAX_GRID_Y), "{block}");
    }
    // Both axes at their limits at once.
    let both = LaunchConfig::covering(Shape::new(MAX_GRID_Y, MAX_GRID_X), Dim2::new(1, 1)).unwrap();
    assert_eq!(both.grid, Dim2::new(MAX_GRID_X as u32, MAX_GRID_Y as u32));
    assert_eq!(both.blocks(), MAX_GRID_X * MAX_GRID_Y);
}

#[test]
fn strided_launches_accept_exactly_the_x_limit_and_refuse_one_block_more() {
    for block in BLOCKS {
        let bx = block.x as u64;
        let at = Shape::new(3, MAX_GRID_X * bx);
        assert_eq!(LaunchConfig::covering_strided(at, block).unwrap().grid.x as u64, MAX_GRID_X, "{block}");
        let past = Shape::new(3, MAX_GRID_X * bx + 1);
        assert_eq!(LaunchConfig::covering_strided(past, block), too_large('x', MAX_GRID_X + 1, MAX_GRID_X), "{block}");
    }
    // A tile wider than the block: the grid counts tiles, not threads.
    let (tile, block) = (Dim2::new(64, 64), Dim2::new(32, 8));
    let at = Shape::new(1, MAX_GRID_X * 64);
    let cfg = LaunchConfig::tiles_strided(at, tile, block).unwrap();
    assert_eq!((cfg.grid, cfg.block), (Dim2::new(MAX_GRID_X as u32, 1), block));
    let past = Shape::new(1, MAX_GRID_X * 64 + 1);
    assert_eq!(LaunchConfig::tiles_strided(past, tile, block), too_large('x', MAX_GRID_X + 1, MAX_GRID_X));
}

#[test]
fn strided_launches_cap_y_at_the_limit_instead_of_refusing() {
    for block in BLOCKS {
        let by = block.y as u64;
        let at = Shape::new(MAX_GRID_Y * by, 1);
        let cfg = LaunchConfig::covering_strided(at, block).unwrap();
        assert_eq!((cfg.grid.y as u64, cfg.rounds(at)), (MAX_GRID_Y, 1), "{block}");
        assert_eq!(cfg, LaunchConfig::covering(at, block).unwrap(), "{block}: at the limit nothing is capped");
        // One row more: the grid stays at the limit and the loop goes round twice.
        let past = Shape::new(MAX_GRID_Y * by + 1, 1);
        let cfg = LaunchConfig::covering_strided(past, block).unwrap();
        assert_eq!((cfg.grid.y as u64, cfg.rounds(past)), (MAX_GRID_Y, 2), "{block}");
        assert!(LaunchConfig::covering(past, block).is_err(), "{block}");
    }
    // A tile taller than the block: the rows of tiles are what is capped.
    let (tile, block) = (Dim2::new(32, 32), Dim2::new(32, 8));
    let at = Shape::new(MAX_GRID_Y * 32, 5);
    assert_eq!(LaunchConfig::tiles_strided(at, tile, block).unwrap().grid, Dim2::new(1, MAX_GRID_Y as u32));
    let below = Shape::new((MAX_GRID_Y - 1) * 32, 5);
    assert_eq!(LaunchConfig::tiles_strided(below, tile, block).unwrap().grid.y as u64, MAX_GRID_Y - 1);
    let past = Shape::new(MAX_GRID_Y * 32 + 1, 5);
    assert_eq!(LaunchConfig::tiles_strided(past, tile, block).unwrap().grid.y as u64, MAX_GRID_Y);
}

#[test]
fn tiles_need_both_sides() {
    let s = Shape::new(4, 4);
    for tile in [Dim2::new(0, 4), Dim2::new(4, 0)] {
        assert_eq!(LaunchConfig::tiles_strided(s, tile, Dim2::new(4, 4)), Err(GeometryError::ZeroBlock), "{tile}");
    }
    assert_eq!(
        LaunchConfig::tiles_strided(Shape::new(0, 4), Dim2::new(4, 4), Dim2::new(4, 4)),
        Err(GeometryError::ZeroExtent)
    );
    assert_eq!(
        LaunchConfig::tiles_strided(s, Dim2::new(4, 4), Dim2::new(64, 32)),
        Err(GeometryError::BlockTooLarge { threads: 2048 })
    );
    // Exactly the per-block limit is allowed.
    assert!(LaunchConfig::check_block(Dim2::new(32, 32)).is_ok());
    assert!(LaunchConfig::check_block(Dim2::new(1024, 1)).is_ok());
    assert_eq!(LaunchConfig::check_block(Dim2::new(1025, 1)), Err(GeometryError::BlockTooLarge { threads: 1025 }));
}

const NOTHING: Twin = Twin { name: "nothing", steps: 1, barriers_after: &[], shared_words: 0, body: |_, _, _, _| {} };

fn exercise(launch: Launch) -> Exercise {
    Exercise {
        id: "boundary-copy",
        title: "a copy",
        kernel: "copy",
        starter: "copy.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
        elem: Elem::F32,
        launch,
        source_shapes: || vec![Shape::new(5, 7)],
        chapter_shapes: Vec::new,
        timing_shape: Shape::new(64, 64),
        expected: |_| Box::new(|i| i),
        twins: Twins { solution: NOTHING, wrong: &[] },
    }
}

/// The battery's tall shape, for every kind of launch, puts more than
/// gridDim.y's limit on the axis that launch walks with y: rows of blocks
/// for a grid-stride launch, columns when x walks rows, rows otherwise,
/// and diagonals (one launch each) for a per-diagonal launch.
#[test]
fn the_tall_case_is_tall_along_the_axis_each_launch_maps_to_y() {
    let b = Dim2::new(32, 8);
    let tall = |launch| {
        let cases = battery(&exercise(launch), false);
        let last = cases.last().unwrap().clone();
        assert_eq!(last.purpose, ktrav::lab::Purpose::PastGridY, "{launch:?}: {}", last.label);
        assert!(last.label.starts_with(&last.shape.to_string()), "{launch:?}: {}", last.label);
        assert!(last.label.contains("65535"), "{launch:?}: {}", last.label);
        last.shape
    };

    // Plain covering: more rows than gridDim.y's limit, on y.
    let plain = Launch::Covering { block: b, x_walks_rows: false, grid_stride_y: false };
    let s = tall(plain);
    // Just past the limit, by less than a block's height: the boundary,
    // and a case that stays cheap to run.
    let just_past = |n: u64| n > MAX_GRID_Y && n - MAX_GRID_Y <= b.y as u64;
    assert!(just_past(s.rows) && s.cols <= b.x as u64, "{s}");
    let (cfg, _) = launches(&exercise(plain), s).unwrap()[0];
    assert_eq!(cfg.threads_y(), ceil_div(s.rows, 8) * 8);

    // x walks rows: the columns go to y, so the columns are the long side.
    let walks = Launch::Covering { block: b, x_walks_rows: true, grid_stride_y: false };
    let s = tall(walks);
    assert!(just_past(s.cols) && s.rows <= b.x as u64, "{s}");
    let (cfg, _) = launches(&exercise(walks), s).unwrap()[0];
    assert!(cfg.threads_y() >= s.cols && cfg.threads_x() < s.cols, "{cfg:?} for {s}");

    // Grid-stride over y: more rows of blocks than the grid can hold, so
    // the loop must go round again, and the last row of blocks is ragged.
    for block in [Dim2::new(32, 32), b] {
        let strided = Launch::Covering { block, x_walks_rows: false, grid_stride_y: true };
        let s = tall(strided);
        let (cfg, _) = launches(&exercise(strided), s).unwrap()[0];
        assert_eq!(cfg.grid.y as u64, MAX_GRID_Y, "{block}");
        assert_eq!(cfg.rounds(s), 2, "{block}: {s}");
        assert!(LaunchConfig::covering(s, block).is_err(), "{block}: {s}");
        // The second round reaches a full row of blocks and then a ragged
        // one, so a kernel must handle both beyond the first pass.
        let second_round = s.rows - MAX_GRID_Y * block.y as u64;
        assert!(second_round > block.y as u64, "{block}: {s}");
        assert_ne!(second_round % block.y as u64, 0, "{block}: {s}");
    }

    // Per diagonal: more diagonals, so more launches, than the limit.
    let diagonal = Launch::PerDiagonal { block: 256 };
    let s = tall(diagonal);
    assert!(just_past(s.rows), "{s}");
    assert_eq!(launches(&exercise(diagonal), s).unwrap().len() as u64, s.rows + s.cols - 1);
}

fn guarded(body: &[u32]) -> Vec<u32> {
    let mut w = vec![POISON_WORD; GUARD_WORDS];
    w.extend_from_slice(body);
    w.extend(std::iter::repeat_n(POISON_WORD, GUARD_WORDS));
    w
}

fn out_of_bounds(before: u64, after: u64) -> Verdict {
    Verdict::Fail { wrong: 0, unwritten: 0, first_bad: None, out_of_bounds_before: before, out_of_bounds_after: after }
}

/// One stray word on one side only, at either end of each guard, for both
/// element types: the verdict names that side, and only that side.
#[test]
fn the_judge_places_a_single_stray_word_on_its_side() {
    let expected: Expected = Box::new(|i| i + 10);
    let body = [10, 11, 12];
    let n = GUARD_WORDS + body.len();
    let cases = [
        (0, out_of_bounds(1, 0)),                   // far before the start
        (GUARD_WORDS - 1, out_of_bounds(1, 0)),     // just before the start
        (n, out_of_bounds(0, 1)),                   // just after the end
        (n + GUARD_WORDS - 1, out_of_bounds(0, 1)), // far after the end
    ];
    for (at, verdict) in cases {
        let mut w = guarded(&body);
        w[at] = 7;
        let got = judge(&w, Elem::F32, &expected);
        assert_eq!(got, verdict, "word {at}");
        assert!(!got.passed() && got.kinds() == [ktrav::lab::FailureKind::OutOfBounds], "word {at}: {got:?}");
    }
    let big: Expected = Box::new(|_| 5u64 << 32 | 6);
    let mut after = guarded(&[6, 5]);
    after[GUARD_WORDS + 2] = 0;
    assert_eq!(judge(&after, Elem::U64, &big), out_of_bounds(0, 1));
    let mut before = guarded(&[6, 5]);
    before[GUARD_WORDS - 1] = 0;
    assert_eq!(judge(&before, Elem::U64, &big), out_of_bounds(1, 0));
    // Two stray words on one side count as two.
    let mut two = guarded(&body);
    two[n] = 1;
    two[n + 1] = 2;
    assert_eq!(judge(&two, Elem::F32, &expected), out_of_bounds(0, 2));
}
