use super::*;
use crate::sim::{launch, BlockOrder};
use simtrack::{Twin, Twins};
use std::collections::BTreeSet;

/// A copy of input 0 (`out[i] = in[i]`), the tests' own exercise: the
/// mechanism is tested here on it, each chapter's exercises in the chapter.
pub(crate) fn copy_exercise(launch: Launch, twins: Twins) -> Exercise {
    Exercise {
        id: "test-copy",
        title: "a copy",
        kernel: "copy",
        starter: "copy.cu",
        args: &[Arg::Out, Arg::Input(0), Arg::Rows64, Arg::Cols64],
        elem: Elem::F32,
        launch,
        source_shapes: || vec![Shape::new(5, 7), Shape::new(2, 3)],
        chapter_shapes: Vec::new,
        timing_shape: Shape::new(64, 64),
        expected: |_| Box::new(|i| input_value(0, i).to_bits() as u64),
        twins,
    }
}

const NOTHING: Twin = Twin { name: "nothing", steps: 1, barriers_after: &[], shared_words: 0, body: |_, _, _, _| {} };

fn exercise(launch: Launch) -> Exercise {
    copy_exercise(launch, Twins { solution: NOTHING, wrong: &[] })
}

/// Every kind of launch an exercise can have.
fn launches_of_every_kind() -> Vec<Launch> {
    let b = Dim2::new(32, 8);
    vec![
        Launch::Covering { block: b, x_walks_rows: false, grid_stride_y: false },
        Launch::Covering { block: Dim2::new(32, 32), x_walks_rows: false, grid_stride_y: true },
        Launch::Covering { block: b, x_walks_rows: true, grid_stride_y: false },
        Launch::PerDiagonal { block: 256 },
    ]
}

#[test]
fn inputs_are_counted_from_the_arguments() {
    let ex = exercise(launches_of_every_kind()[0]);
    assert_eq!(ex.inputs(), 1);
    assert_ne!(input_value(0, 5), input_value(1, 5));
    assert_eq!(input(1, 3), vec![input_value(1, 0), input_value(1, 1), input_value(1, 2)]);
}

#[test]
fn the_battery_has_every_kind_of_shape() {
    for launch in launches_of_every_kind() {
        let ex = &exercise(launch);
        let b = battery(ex, false);
        let has = |rows, cols| b.iter().any(|c| c.shape == Shape::new(rows, cols));
        assert!(has(5, 7) && has(2, 3) && b[0].label == "the source's 5x7", "{launch:?}");
        assert!(has(1, 1) && has(1, 1000) && has(1000, 1) && has(97, 131), "{launch:?}");
        // Every shape has a launch, and one of them passes gridDim.y's limit
        // (or, for kernels without a y loop, has more rows than it).
        let tall = b.last().unwrap();
        assert!(tall.shape.rows.max(tall.shape.cols) > MAX_GRID_Y, "{launch:?}: {}", tall.label);
        for c in &b {
            assert!(!launches(ex, c.shape).unwrap().is_empty(), "{launch:?}: {}", c.label);
        }
        if let Launch::Covering { block, grid_stride_y: true, .. } = ex.launch {
            assert!(LaunchConfig::covering(tall.shape, block).is_err(), "{launch:?}: the tall shape fits the grid");
        }
        let large = battery(ex, true);
        assert_eq!(large.len(), b.len() + 1);
        assert!(large.last().unwrap().shape.elements() > 1 << 31);
        // Each shape says why it is there: the source's own first, one shape
        // past gridDim.y's limit (the last without large), one past 2^31
        // elements only with large.
        let of = |cases: &[Case], p: Purpose| cases.iter().filter(|c| c.purpose == p).count();
        let sources = (ex.source_shapes)().len();
        assert!(b[..sources].iter().all(|c| c.purpose == Purpose::Source), "{launch:?}");
        assert_eq!((of(&b, Purpose::Source), of(&b, Purpose::PastGridY), of(&b, Purpose::Large)), (sources, 1, 0));
        assert_eq!((tall.purpose, of(&large, Purpose::Large)), (Purpose::PastGridY, 1), "{launch:?}");
        assert_eq!(large.last().unwrap().purpose, Purpose::Large);
        for c in b.iter().filter(|c| c.purpose == Purpose::Edge) {
            assert_eq!(c.shape.rows.min(c.shape.cols), 1, "{launch:?}: {}", c.label);
        }
        for c in b.iter().filter(|c| c.purpose == Purpose::Ragged) {
            // An odd side is no multiple of any block's side past 1.
            let (r, k) = (c.shape.rows, c.shape.cols);
            assert!(r.min(k) > 1 && (r % 2 == 1 || k % 2 == 1), "{launch:?}: {}", c.label);
        }
        assert_eq!(of(&b, Purpose::Ragged) + of(&b, Purpose::Edge) + sources + 1, b.len(), "{launch:?}");
    }
}

#[test]
fn launches_are_stated_as_the_starters_state_them() {
    let sentences: Vec<String> = launches_of_every_kind().iter().map(Launch::sentence).collect();
    assert_eq!(
        sentences,
        [
            "blockDim = (32, 8) and gridDim = (ceil(cols / 32), ceil(rows / 8))",
            "blockDim = (32, 32) and gridDim = (ceil(cols / 32), min(ceil(rows / 32), 65535))",
            "blockDim = (32, 8) and gridDim = (ceil(rows / 32), ceil(cols / 8))",
            "a 1D grid of ceil(cells on d / 256) blocks of 256 threads",
        ]
    );
}

/// The per-diagonal plan launches one thread for each cell of each
/// diagonal (plus spare ones past its end), in diagonal order.
#[test]
fn per_diagonal_launches_cover_each_cell_once() {
    let ex = &exercise(Launch::PerDiagonal { block: 256 });
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
    let line = ShapeResult {
        label: "x".into(),
        rows: 1,
        cols: 3,
        battery: Battery::Public,
        purpose: Purpose::Given,
        verdict: fail(0, 0, None, 1, 1),
    }
    .line();
    assert!(report::plain(&line).contains("written out of bounds: 1 words before the output, 1 after: FAIL"), "{line}");
}

#[test]
fn records_start_as_could_not_check_and_finish_by_their_shapes() {
    let ex = exercise(launches_of_every_kind()[0]);
    let r = Record::new("K.9", &ex, "x.cu".into());
    assert_eq!((r.outcome, r.exit_code, r.section.as_str()), (CheckOutcome::CouldNotCheck, COULD_NOT_CHECK, "K.9"));
    let failed = Record::new("K.9", &ex, "x.cu".into()).fail("no kernel");
    assert_eq!((failed.outcome, failed.exit_code), (CheckOutcome::Fail, 1));
    assert!(
        render(&failed).contains("result: FAIL: no kernel")
            || report::plain(&render(&failed)).contains("result: FAIL: no kernel")
    );
    let mut r = Record::new("K.9", &ex, "x.cu".into());
    r.shapes.push(ShapeResult {
        label: "1x1".into(),
        rows: 1,
        cols: 1,
        battery: Battery::Public,
        purpose: Purpose::Edge,
        verdict: Verdict::Pass,
    });
    r.finish();
    assert_eq!((r.outcome, r.exit_code), (CheckOutcome::Pass, 0));
    r.shapes.push(ShapeResult {
        label: "1x2".into(),
        rows: 1,
        cols: 2,
        battery: Battery::Public,
        purpose: Purpose::Edge,
        verdict: Verdict::NotRun { cause: NotRunCause::NoTimeLeft },
    });
    r.finish();
    assert_eq!((r.outcome, r.exit_code), (CheckOutcome::Fail, 1));
}

#[test]
fn bad_files_are_refused_in_one_line() {
    use std::path::PathBuf;
    let dir = std::env::temp_dir().join(format!("ktrav-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (bin, nul) = (dir.join("bin.cu"), dir.join("nul.cu"));
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    std::fs::write(&nul, "int a;\0").unwrap();
    std::fs::write(dir.join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(dir.join("secret.txt"), dir.join("link.cu")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.cu")).unwrap();
    std::fs::create_dir_all(dir.join("folder.cu")).unwrap();
    let cases = [
        (dir.join("missing.cu"), "cannot read"),
        (bin, "not UTF-8"),
        (nul, "NUL byte"),
        (dir.join("link.cu"), "is a symbolic link: only a regular file is read"),
        (dir.join("zero.cu"), "is a symbolic link"),
        (dir.join("folder.cu"), "is a folder: only a regular file is read"),
        (PathBuf::from("/dev/null"), "is a device"),
    ];
    for (path, says) in cases {
        if !path.starts_with(&dir) && !path.exists() {
            continue;
        }
        let e = format!("{:#}", read_source(&path).unwrap_err());
        assert!(e.contains(says) && !e.contains('\n'), "{e}");
    }
    std::fs::write(dir.join("ok.cu"), "int a;").unwrap();
    assert_eq!(read_source(&dir.join("ok.cu")).unwrap(), "int a;");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn verdict_json_is_one_flat_record_per_shape() {
    let s = ShapeResult {
        label: "1x1".into(),
        rows: 1,
        cols: 1,
        battery: Battery::Public,
        purpose: Purpose::Edge,
        verdict: Verdict::DidNotFinish { seconds: 60 },
    };
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        r#"{"label":"1x1","rows":1,"cols":1,"battery":"public","verdict":"did_not_finish","seconds":60}"#
    );
    let private = ShapeResult { battery: Battery::Hidden, ..s.clone() }.private(3);
    assert_eq!(
        serde_json::to_string(&private).unwrap(),
        r#"{"label":"hidden shape 3","rows":0,"cols":0,"battery":"hidden","verdict":"fail","wrong":0,"unwritten":0,"first_bad":null,"out_of_bounds_before":0,"out_of_bounds_after":0}"#
    );
    assert_eq!(ktrav_term::report::plain(&private.line()), "  hidden shape 3: FAIL");
    // A shape not run says why; a record that does not say reads as the
    // time after a hang running out, the one cause a check with workers has.
    let unusable = Verdict::NotRun { cause: NotRunCause::DeviceUnusable };
    let json = serde_json::to_string(&unusable).unwrap();
    assert_eq!(json, r#"{"verdict":"not_run","cause":"device_unusable"}"#);
    assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), unusable);
    assert_eq!(
        serde_json::from_str::<Verdict>(r#"{"verdict":"not_run"}"#).unwrap(),
        Verdict::NotRun { cause: NotRunCause::NoTimeLeft }
    );
    assert_ne!(unusable.describe(1), Verdict::NotRun { cause: NotRunCause::NoTimeLeft }.describe(1));
    assert!(
        !Verdict::DidNotFinish { seconds: 1 }.device_usable()
            && !Verdict::NotRun { cause: NotRunCause::NoTimeLeft }.passed()
    );
    // A skipped shape fails no check, and is not a pass a score may count.
    let skipped = Verdict::Skipped { reason: "needs 17 GB".into() };
    assert!(
        !skipped.passed()
            && !skipped.failed()
            && Verdict::Pass.passed()
            && Verdict::NotRun { cause: NotRunCause::DeviceUnusable }.failed()
    );
    let hidden = ShapeResult {
        label: "hidden: 46341x46341".into(),
        rows: 46341,
        cols: 46341,
        battery: Battery::Hidden,
        purpose: Purpose::Large,
        verdict: skipped,
    };
    let private = hidden.private(2);
    assert_eq!(
        private.verdict,
        Verdict::Skipped { reason: PRIVATE_SKIP.into() },
        "a private skip does not say what it needs"
    );
    assert_eq!(ktrav_term::report::plain(&private.line()), "  hidden shape 2: skipped");
}

#[test]
fn the_hidden_battery_is_drawn_from_its_seed_and_covers_every_residue() {
    for launch in launches_of_every_kind() {
        let ex = &exercise(launch);
        let a = hidden_battery(ex, 7, false);
        assert_eq!(a, hidden_battery(ex, 7, false), "{launch:?}: the same seed, the same shapes");
        let other: Vec<Shape> = hidden_battery(ex, 8, false).iter().map(|c| c.shape).collect();
        assert_ne!(a.iter().map(|c| c.shape).collect::<Vec<_>>(), other, "{launch:?}: another seed, other shapes");
        assert!(a.iter().all(|c| c.battery == Battery::Hidden && c.label.starts_with("hidden: ")), "{launch:?}");
        // Only the capped shapes are there for their cap, and every purpose
        // is one the hidden battery draws for.
        for c in &a {
            assert_eq!(c.purpose == Purpose::CappedGridY, c.grid_y_cap.is_some(), "{launch:?}: {}", c.label);
            let drawn = [Purpose::Residue, Purpose::LongSide, Purpose::LargestGridY, Purpose::CappedGridY];
            assert!(drawn.contains(&c.purpose), "{launch:?}: {} is there for {:?}", c.label, c.purpose);
        }
        for c in &a {
            assert!(c.shape.elements() <= HIDDEN_MAX_ELEMENTS, "{launch:?}: {}", c.label);
            let plan = case_launches(ex, c).unwrap_or_else(|e| panic!("{launch:?}: {} does not launch: {e}", c.label));
            assert!(plan
                .iter()
                .all(|(cfg, _)| cfg.grid.y as u64 <= MAX_GRID_Y && cfg.grid.x as u64 <= crate::geometry::MAX_GRID_X));
        }
        assert!(a.iter().all(|c| c.shape.elements() <= 1 << 31), "{launch:?}: nothing past 2^31 without large");
        let walked = |s: Shape| match launch {
            Launch::Covering { x_walks_rows: true, .. } => s.transposed(),
            _ => s,
        };
        match launch {
            Launch::Covering { block, grid_stride_y, .. } => {
                // Every residue of the block on both axes of the launch.
                let ys: BTreeSet<u64> = a.iter().map(|c| walked(c.shape).rows % block.y as u64).collect();
                let xs: BTreeSet<u64> = a.iter().map(|c| walked(c.shape).cols % block.x as u64).collect();
                assert_eq!((ys.len(), xs.len()), (block.y as usize, block.x as usize), "{launch:?}");
                // Tall and wide: past 2^17 on y always, past 2^20 with a y
                // loop, past 2^20 on x always; the largest grid in y.
                let tallest = a.iter().map(|c| walked(c.shape).rows).max().unwrap();
                let widest = a.iter().map(|c| walked(c.shape).cols).max().unwrap();
                assert!(tallest > 1 << 17 && widest > 1 << 20, "{launch:?}: {tallest} rows, {widest} cols");
                assert_eq!(tallest > 1 << 20, grid_stride_y, "{launch:?}: rows past 2^20 only where the launch allows");
                let full_y = a.iter().any(|c| case_launches(ex, c).unwrap()[0].0.grid.y as u64 == MAX_GRID_Y);
                assert!(full_y, "{launch:?}: no grid reaches gridDim.y's limit");
                let capped: Vec<&Case> = a.iter().filter(|c| c.grid_y_cap.is_some()).collect();
                if grid_stride_y {
                    let caps: BTreeSet<u32> = capped.iter().map(|c| c.grid_y_cap.unwrap()).collect();
                    assert_eq!(caps, HIDDEN_GRID_Y_CAPS.into_iter().collect(), "{launch:?}");
                    for c in capped {
                        let (cfg, _) = case_launches(ex, c).unwrap()[0];
                        let rows_of_blocks = walked(c.shape).rows.div_ceil(block.y as u64);
                        assert_eq!(cfg.grid.y, c.grid_y_cap.unwrap(), "{}", c.label);
                        assert!(
                            rows_of_blocks / cfg.grid.y as u64 >= 3,
                            "{}: every block loops three times or more",
                            c.label
                        );
                    }
                } else {
                    assert!(capped.is_empty(), "{launch:?}: only a kernel that loops over y is capped");
                }
            }
            Launch::PerDiagonal { block } => {
                assert!(
                    a.iter().any(|c| c.shape.rows.min(c.shape.cols) > block as u64),
                    "every diagonal length mod {block}"
                );
                assert!(a.iter().any(|c| c.shape.rows > 1 << 20) && a.iter().any(|c| c.shape.cols > 1 << 20));
            }
        }
        // With large: one shape past 2^31 elements, one past 2^32, each
        // saying what device memory it needs.
        let large = hidden_battery(ex, 7, true);
        assert_eq!(&large[..a.len()], &a[..], "{launch:?}: large only adds shapes");
        let past = |bits: u32| large.iter().filter(|c| c.shape.elements() > 1 << bits).count();
        assert_eq!((past(31), past(32)), (2, 1), "{launch:?}");
        for c in &large[a.len()..] {
            assert_eq!(c.purpose, Purpose::Large, "{}", c.label);
            let gb = format!("needs {:.1} GB of device memory", device_bytes(ex, c.shape) as f64 / 1e9);
            assert!(c.label.contains(&gb), "{}", c.label);
            assert!(case_launches(ex, c).is_ok(), "{}", c.label);
        }
    }
}

#[test]
fn the_public_battery_is_public_and_uncapped() {
    for launch in launches_of_every_kind() {
        let ex = &exercise(launch);
        for c in battery(ex, true) {
            assert_eq!((c.battery, c.grid_y_cap), (Battery::Public, None), "{}", c.label);
            assert_eq!(case_launches(ex, &c).unwrap(), launches(ex, c.shape).unwrap());
        }
    }
    // A 2D copy reads one input: out and its two guards, the input and its
    // run-on past the end, four bytes a word.
    let ex = exercise(launches_of_every_kind()[0]);
    assert_eq!(device_bytes(&ex, Shape::new(10, 10)), (3 * GUARD_WORDS as u64 + 200) * 4);
}

#[test]
fn the_seed_comes_from_the_flag_then_the_variable() {
    // One test changes the variable, so no other test reads it concurrently.
    std::env::remove_var(SEED_ENV);
    assert_eq!(seed_from(None).unwrap(), None);
    assert_eq!(seed_from(Some(5)).unwrap(), Some(5));
    std::env::set_var(SEED_ENV, " 42 ");
    assert_eq!(seed_from(None).unwrap(), Some(42));
    assert_eq!(seed_from(Some(5)).unwrap(), Some(5), "the flag wins");
    std::env::set_var(SEED_ENV, "forty-two");
    let e = format!("{:#}", seed_from(None).unwrap_err());
    assert!(e.starts_with("KTRAV_LAB_SEED: 'forty-two' is not a seed") && !e.contains('\n'), "{e}");
    std::env::set_var(SEED_ENV, "-1");
    assert!(seed_from(None).is_err());
    std::env::remove_var(SEED_ENV);
}

#[test]
fn a_seed_file_is_read_only_when_its_owner_alone_may_read_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("ktrav-seed-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("seed");
    std::fs::write(&file, " 42\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(seed_from_file(&file).unwrap(), 42);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = format!("{:#}", seed_from_file(&file).unwrap_err());
    assert!(e.contains("may be read by others (mode 644)") && !e.contains('\n'), "{e}");
    std::fs::write(&file, "forty-two").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o400)).unwrap();
    assert!(format!("{:#}", seed_from_file(&file).unwrap_err()).contains("is not a seed"));
    std::os::unix::fs::symlink(&file, dir.join("link")).unwrap();
    assert!(format!("{:#}", seed_from_file(&dir.join("link")).unwrap_err()).contains("not a regular file"));
    assert!(format!("{:#}", seed_from_file(&dir.join("none")).unwrap_err()).starts_with("cannot read the seed file"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_largest_bytes_bound_every_seeds_hidden_shapes() {
    for launch in launches_of_every_kind() {
        let ex = &exercise(launch);
        for large in [false, true] {
            let public = largest_bytes(ex, false, large);
            assert_eq!(public, battery(ex, large).iter().map(|c| device_bytes(ex, c.shape)).max().unwrap());
            let bound = largest_bytes(ex, true, large);
            assert!(bound >= public);
            for seed in 0..16 {
                for c in hidden_battery(ex, seed, large) {
                    assert!(device_bytes(ex, c.shape) <= bound, "{launch:?} seed {seed}: {} past the bound", c.label);
                }
            }
        }
    }
}

/// A sanitized run's output is not compared, so its pass claims no match.
#[test]
fn a_sanitizer_pass_says_no_errors_not_all_match() {
    let s = ShapeResult {
        label: "memcheck on 8x8".into(),
        rows: 8,
        cols: 8,
        battery: Battery::Public,
        purpose: Purpose::Edge,
        verdict: Verdict::Pass,
    };
    assert_eq!(ktrav_term::report::plain(&s.sanitizer_line()), "  memcheck on 8x8: no errors: pass");
    let found = ShapeResult {
        verdict: Verdict::Sanitizer { tool: SanitizerTool::Memcheck, errors: 3, first: "Invalid read".into() },
        ..s
    };
    assert_eq!(
        ktrav_term::report::plain(&found.sanitizer_line()),
        "  memcheck on 8x8: memcheck found 3 errors, the first: Invalid read: FAIL"
    );
}
