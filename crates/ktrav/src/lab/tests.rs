use super::*;
use crate::sim::{launch, BlockOrder};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_chapter_from_k2_has_an_exercise_and_ids_are_unique() {
    for chapter in ["k2_transpose", "k3_grid_mapping", "k4_boundary_check", "k5_layout_interop", "k6_spiral", "k7_diagonal"] {
        assert!(!exercises_of(chapter).is_empty(), "{chapter} has no exercise");
    }
    for ex in all() {
        assert_eq!(exercises_of(ex.chapter).iter().filter(|e| e.id == ex.id).count(), 1, "{} twice", ex.id);
        assert!(workspace().join(ex.starter).is_file(), "{} is missing", ex.starter);
        assert!(ex.args.iter().filter(|a| **a == Arg::Out).count() == 1);
        let inputs = ex.args.iter().filter(|a| matches!(a, Arg::Input(_))).count();
        assert_eq!(inputs, ex.inputs as usize, "{}", ex.id);
    }
}

#[test]
fn the_battery_has_every_kind_of_shape() {
    for ex in all() {
        let b = battery(ex, false);
        let has = |rows, cols| b.iter().any(|c| c.shape == Shape::new(rows, cols));
        for &(r, c) in ex.source_shapes {
            assert!(has(r, c), "{}: the source's {r}x{c}", ex.id);
        }
        assert!(has(1, 1) && has(1, 1000) && has(1000, 1) && has(97, 131), "{}", ex.id);
        // Every shape has a launch, and one of them passes gridDim.y's limit
        // (or, for kernels without a y loop, has more rows than it).
        let tall = b.last().unwrap();
        assert!(tall.shape.rows.max(tall.shape.cols) > MAX_GRID_Y, "{}: {}", ex.id, tall.label);
        for c in &b {
            assert!(!launches(ex, c.shape).unwrap().is_empty(), "{}: {}", ex.id, c.label);
        }
        if let Launch::Covering { block, grid_stride_y: true, .. } = ex.launch {
            assert!(LaunchConfig::covering(tall.shape, block).is_err(), "{}: the tall shape fits the grid", ex.id);
        }
        let large = battery(ex, true);
        assert_eq!(large.len(), b.len() + 1);
        assert!(large.last().unwrap().shape.elements() > 1 << 31);
    }
}

/// The per-diagonal plan launches one thread for each cell of each
/// diagonal (plus spare ones past its end), in diagonal order.
#[test]
fn per_diagonal_launches_cover_each_cell_once() {
    let ex = all().find(|e| e.id == "wavefront").unwrap();
    for shape in [Shape::new(5, 5), Shape::new(1, 8), Shape::new(8, 1), Shape::new(300, 7)] {
        let mut hits = vec![0u32; shape.elements() as usize];
        for (d, (cfg, step)) in launches(ex, shape).unwrap().into_iter().enumerate() {
            assert_eq!(step, d as i64);
            let d = d as u64;
            let (lo, hi) = (d.saturating_sub(shape.cols - 1), d.min(shape.rows - 1));
            assert_eq!(cfg.threads_x(), (hi - lo + 1).div_ceil(256) * 256);
            launch(&cfg, &BlockOrder::Forward, |t| {
                let row = lo + t.global_x();
                if row <= hi {
                    hits[(row * shape.cols + d - row) as usize] += 1;
                }
            });
        }
        assert!(hits.iter().all(|&h| h == 1), "{shape}");
    }
}

/// The spiral rank, walked cell by cell: an independent model of the
/// forward map, which the expected gather must invert.
fn walked_spiral(shape: Shape) -> Vec<u64> {
    let (rows, cols) = (shape.rows as i64, shape.cols as i64);
    let mut order = Vec::new();
    let (mut top, mut bottom, mut left, mut right) = (0, rows - 1, 0, cols - 1);
    while top <= bottom && left <= right {
        (left..=right).for_each(|c| order.push(top * cols + c));
        (top + 1..=bottom).for_each(|r| order.push(r * cols + right));
        if top < bottom {
            (left..right).rev().for_each(|c| order.push(bottom * cols + c));
        }
        if left < right {
            (top + 1..bottom).rev().for_each(|r| order.push(r * cols + left));
        }
        (top, bottom, left, right) = (top + 1, bottom - 1, left + 1, right - 1);
    }
    order.into_iter().map(|i| i as u64).collect()
}

/// Each exercise's expected output against a brute-force model of it.
#[test]
fn expected_outputs_match_brute_force_models() {
    let value = |k: u8, i: u64| reference::input_value(k, i);
    for shape in [Shape::new(1, 1), Shape::new(4, 5), Shape::new(7, 5), Shape::new(6, 9), Shape::new(1, 7), Shape::new(9, 1)] {
        let n = shape.elements();
        let (rows, cols) = (shape.rows, shape.cols);
        let spiral = walked_spiral(shape);
        let mut paths = vec![0u64; n as usize];
        for r in 0..rows {
            for c in 0..cols {
                let i = (r * cols + c) as usize;
                paths[i] = if r == 0 || c == 0 {
                    1
                } else {
                    (paths[i - cols as usize] + paths[i - 1]) % reference::LATTICE_MODULUS
                };
            }
        }
        for ex in all() {
            let expected = (ex.expected)(shape);
            for i in 0..n {
                let model: u64 = match ex.chapter {
                    "k2_transpose" => value(0, (i % rows) * cols + i / rows).to_bits() as u64,
                    "k3_grid_mapping" => value(0, i).to_bits() as u64,
                    "k4_boundary_check" => (((i / cols) * 1000 + i % cols) as f32).to_bits() as u64,
                    "k5_layout_interop" => (value(0, i) + value(1, i)).to_bits() as u64,
                    "k6_spiral" => value(0, spiral[i as usize]).to_bits() as u64,
                    "k7_diagonal" => paths[i as usize],
                    other => panic!("no model for {other}"),
                };
                assert_eq!(expected(i), model, "{} on {shape}, element {i}", ex.id);
            }
        }
    }
}

fn guarded(body: &[u32]) -> Vec<u32> {
    let mut w = vec![POISON_WORD; GUARD_WORDS];
    w.extend_from_slice(body);
    w.extend(std::iter::repeat_n(POISON_WORD, GUARD_WORDS));
    w
}

#[test]
fn the_judge_tells_wrong_unwritten_and_out_of_bounds_apart() {
    let expected: Expected = Box::new(|i| i + 10);
    assert_eq!(judge(&guarded(&[10, 11, 12]), Elem::F32, &expected), Verdict::Pass);
    let fail = |wrong, unwritten, first_bad, before, after| Verdict::Fail {
        wrong,
        unwritten,
        first_bad,
        out_of_bounds_before: before,
        out_of_bounds_after: after,
    };
    assert_eq!(judge(&guarded(&[10, 99, POISON_WORD]), Elem::F32, &expected), fail(1, 1, Some(1), 0, 0));
    let mut w = guarded(&[10, 11, 12]);
    w[GUARD_WORDS + 3] = 7; // the word just past the end
    w[0] = 7; // far before the start
    assert_eq!(judge(&w, Elem::F32, &expected), fail(0, 0, None, 1, 1));
    // 64-bit elements: unwritten only when both halves are poison.
    let big: Expected = Box::new(|_| 5u64 << 32 | 6);
    assert_eq!(judge(&guarded(&[6, 5]), Elem::U64, &big), Verdict::Pass);
    assert_eq!(judge(&guarded(&[POISON_WORD, POISON_WORD, 6, 7]), Elem::U64, &big), fail(1, 1, Some(0), 0, 0));
    let line = ShapeResult { label: "x".into(), rows: 1, cols: 3, verdict: fail(0, 0, None, 1, 1) }.line();
    assert!(report::plain(&line).contains("written out of bounds: 1 words before the output, 1 after: FAIL"), "{line}");
}





#[test]
fn bad_files_are_refused_in_one_line() {
    let dir = std::env::temp_dir().join(format!("ktrav-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (bin, nul) = (dir.join("bin.cu"), dir.join("nul.cu"));
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    std::fs::write(&nul, "int a;\0").unwrap();
    for (path, says) in [(dir.join("missing.cu"), "cannot read"), (bin, "not UTF-8"), (nul, "NUL byte")] {
        let e = format!("{:#}", read_source(&path).unwrap_err());
        assert!(e.contains(says) && !e.contains('\n'), "{e}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn verdict_json_is_one_flat_record_per_shape() {
    let s = ShapeResult { label: "1x1".into(), rows: 1, cols: 1, verdict: Verdict::DidNotFinish { seconds: 60 } };
    assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"label":"1x1","rows":1,"cols":1,"verdict":"did_not_finish","seconds":60}"#);
    assert!(!Verdict::DidNotFinish { seconds: 1 }.device_usable() && !Verdict::NotRun.passed());
    assert!(Verdict::Skipped { reason: "memory".into() }.passed());
}
