//! Every chapter's ladder against its kernel file, read through `CHAPTERS`:
//! what a `.cu` file states about a version (its number, its
//! `__launch_bounds__`, the block its comment names) is what the version's
//! plan launches, on every shape the ladder runs, the kernel source a
//! chapter reads is the file the build embeds, and each chapter checks how
//! its kernel file compiles in one place, its `tests/kernels.rs`.

use appendix_k::CHAPTERS;
use ktrav::ladder::shapes;
use ktrav::{cu, Shape};

/// The multiprocessor counts plans are tried with: a small card and an H200.
const SMS: [u32; 2] = [1, 132];

/// Every shape a version is validated on, and a few more.
fn plan_shapes() -> Vec<Shape> {
    let mut v = shapes(true);
    v.extend([Shape::new(2, 3), Shape::new(4097, 4095), Shape::new(100_003, 7), Shape::new(7, 100_003)]);
    v
}

#[test]
fn a_chapters_kernel_source_is_its_embedded_kernel_file() {
    for ch in CHAPTERS {
        let embedded = ktrav_gpu::kernels::find(ch.id).map(|k| k.source);
        assert_eq!(ch.kernel_source, embedded, "{}: its kernel_source is not kernels/{}.cu", ch.id, ch.id);
        assert!(ch.versions.is_empty() || ch.kernel_source.is_some(), "{} has versions but no kernel file", ch.id);
    }
}

/// Every chapter with a kernel file checks how it compiles in its
/// `tests/kernels.rs`: its kernels (`check_compiled`) and, with a ladder,
/// its versions (`check_versions`); no other file of the chapter does.
#[test]
fn a_chapters_compile_checks_are_its_tests_kernels_rs() {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    let chapters = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("chapters");
    for ch in CHAPTERS.iter().filter(|ch| ch.kernel_source.is_some()) {
        let dir = chapters.join(ch.id);
        let place = dir.join("tests/kernels.rs");
        let text = std::fs::read_to_string(&place).unwrap_or_else(|e| panic!("{}: {e}", place.display()));
        assert!(text.contains("check_compiled(") && text.contains(&format!("\"{}\"", ch.id)), "{}", place.display());
        assert!(ch.versions.is_empty() || text.contains("check_versions("), "{} checks no version", place.display());
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files.iter().filter(|f| **f != place) {
            let text = std::fs::read_to_string(file).unwrap();
            assert!(
                !text.contains("check_compiled(") && !text.contains("check_versions("),
                "{} checks the kernel file: that is tests/kernels.rs's",
                file.display()
            );
        }
    }
}

/// Where a chapter's GPU entry points say its ladder times an exercise's
/// solution (which the GPU suite then times beside the check's timing),
/// the chapter has a ladder, its kernel file declares the exercise's
/// kernel, and a GPU run may take the shape; where they say it does not,
/// the reason names the chapter.
#[test]
fn an_exercise_is_paired_with_its_ladder_only_where_the_chapter_has_one() {
    let mut paired = 0;
    for ch in CHAPTERS {
        let Some(gpu) = ch.gpu else { continue };
        for ex in ch.exercises {
            match gpu.ladder_shape(ex) {
                Ok(shape) => {
                    paired += 1;
                    assert!(!ch.versions.is_empty(), "{}: {} is timed on a ladder it does not have", ch.id, ex.id);
                    let source = ch.kernel_source.unwrap();
                    assert!(cu::declares(source, ex.kernel), "kernels/{}.cu declares no {}", ch.id, ex.kernel);
                    assert!(shape.elements() <= ktrav::section::MAX_GPU_ELEMENTS, "{}: {shape}", ex.id);
                }
                Err(why) => {
                    assert_eq!(why.section(), ch.section, "{}: {why}", ex.id);
                    assert!(why.to_string().starts_with(ch.section), "{}: {why}", ex.id);
                }
            }
        }
    }
    assert!(paired > 0, "no exercise is timed on its chapter's ladder");
}

#[test]
fn every_version_is_numbered_commented_and_bounded_as_its_plan_launches() {
    let mut listed = Vec::new();
    for ch in CHAPTERS {
        for (i, v) in ch.versions.iter().enumerate() {
            listed.push(v.kernel);
            let n = i + 1;
            let source = ch.kernel_source.unwrap();
            assert!(v.kernel.contains(&format!("_v{n}_")), "{}: version {n} is {}", ch.id, v.kernel);
            assert!(cu::declares(source, v.kernel), "kernels/{}.cu declares no {}", ch.id, v.kernel);
            let bounds = cu::launch_bounds(source, v.kernel)
                .unwrap_or_else(|| panic!("{} states no __launch_bounds__", v.kernel));
            let comment = cu::version_comment(source, n, v.kernel)
                .unwrap_or_else(|| panic!("{} has no // v{n} comment", v.kernel));
            assert!(cu::version_reason(source, n, v.kernel).is_some_and(|r| r.len() > 10), "{}: {comment}", v.kernel);
            for shape in plan_shapes() {
                for sms in SMS {
                    let plan = v.checked_plan(shape, sms).unwrap_or_else(|e| panic!("{} on {shape}: {e}", v.kernel));
                    let block = plan.cfg.block;
                    assert_eq!(
                        block.count(),
                        bounds as u64,
                        "{} on {shape}: a {block} block, __launch_bounds__({bounds})",
                        v.kernel
                    );
                    if let Some((x, y)) = cu::stated_block(&comment) {
                        assert_eq!(
                            (block.x, block.y),
                            (x, y),
                            "{} on {shape}: its comment says blockDim = ({x}, {y})",
                            v.kernel
                        );
                    }
                }
            }
        }
    }
    // The ladders hold every numbered version the kernel files declare,
    // once: a version its chapter's ladder leaves out (or lists twice)
    // fails here.
    let mut declared: Vec<&str> = CHAPTERS
        .iter()
        .filter_map(|ch| ch.kernel_source)
        .flat_map(cu::entry_points)
        .filter(|kernel| kernel.split('_').any(|w| w.len() > 1 && w.starts_with('v') && w[1..].parse::<u32>().is_ok()))
        .collect();
    declared.sort();
    listed.sort();
    assert_eq!(listed, declared, "the chapters' ladders against the numbered kernels of kernels/*.cu");
}

/// A plan that launches a block its kernel is not written for is refused
/// before anything is launched: K.7's v4 steps as exactly one warp.
#[test]
fn a_plan_that_breaks_its_block_rule_is_refused() {
    let ch = CHAPTERS
        .iter()
        .find(|ch| ch.versions.iter().any(|v| v.block == ktrav::ladder::BlockRule::Exactly(ktrav::Dim2::new(32, 1))))
        .unwrap();
    let v = ch.versions.iter().find(|v| matches!(v.block, ktrav::ladder::BlockRule::Exactly(_))).unwrap();
    let mut wrong = *v;
    wrong.plan = |shape, sms| {
        let mut p = ktrav::ladder::grid_stride(shape.elements(), 64, 1, sms)?;
        p.grid.x = 1;
        Ok(ktrav::ladder::plain(p))
    };
    let e = wrong.checked_plan(Shape::new(64, 64), 132).unwrap_err().to_string();
    assert!(e.contains("64x1 blocks") && e.contains("exactly"), "{e}");
}

/// The comment block that opens a kernel file's ladder: from its
/// `---- How fast can it go ----` line to the first version's comment, as
/// one text without the comment markers.
fn ladder_header(source: &str) -> Option<String> {
    let start = source.find("---- How fast can it go ----")?;
    let rest = &source[start..];
    let end = rest.find("\n// v1").unwrap_or(rest.len());
    Some(rest[..end].lines().map(|l| l.trim_start_matches('/').trim()).collect::<Vec<_>>().join(" "))
}

/// The blocks a ladder header states, as `(version, (x, y))`: each
/// `(x, y)` pair of whole numbers belongs to the versions named since the
/// previous one, as in "v1 and v2 are launched with blockDim = (32, 8), v3
/// with (16, 16)".
fn header_blocks(header: &str) -> Vec<(usize, (u32, u32))> {
    let mut out = Vec::new();
    let mut pending = Vec::new();
    let words: Vec<&str> = header.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let bare = w.trim_matches(|c: char| c == ',' || c == ';' || c == '.');
        if let Some(n) = bare.strip_prefix('v').and_then(|n| n.parse::<usize>().ok()) {
            pending.push(n);
        } else if let Some(x) =
            w.strip_prefix('(').and_then(|x| x.strip_suffix(',')).and_then(|x| x.parse::<u32>().ok())
        {
            let y = words.get(i + 1).and_then(|y| y.split(')').next()).and_then(|y| y.parse::<u32>().ok());
            if let Some(y) = y {
                out.extend(pending.drain(..).map(|n| (n, (x, y))));
            }
        }
    }
    out
}

/// Where a ladder's header says which block its versions are launched
/// with, every plan launches that block: K.2's says v1 and v2 take 32x8
/// and v3 16x16 (at 32x8, v3 would write past its shared tile).
#[test]
fn a_ladder_header_states_the_blocks_the_plans_launch() {
    let mut stated = 0;
    for ch in CHAPTERS.iter().filter(|ch| !ch.versions.is_empty()) {
        let Some(header) = ladder_header(ch.kernel_source.unwrap()) else { continue };
        for (n, (x, y)) in header_blocks(&header) {
            let v = ch
                .versions
                .get(n - 1)
                .unwrap_or_else(|| panic!("kernels/{}.cu's header names v{n}, which it lacks", ch.id));
            for shape in plan_shapes() {
                let block = v.checked_plan(shape, 132).unwrap().cfg.block;
                assert_eq!(
                    (block.x, block.y),
                    (x, y),
                    "kernels/{}.cu's header says v{n} takes ({x}, {y}); {shape}",
                    ch.id
                );
            }
            stated += 1;
        }
    }
    let k2 = CHAPTERS.iter().find(|ch| ch.id == "k2_transpose").unwrap();
    let blocks = header_blocks(&ladder_header(k2.kernel_source.unwrap()).unwrap());
    assert_eq!(blocks, [(1, (32, 8)), (2, (32, 8)), (3, (16, 16))]);
    assert!(stated >= 3);
}

/// A grid cap is written in terms of the device: "SMs * BLOCKS_PER_SM",
/// with the value the plans use, never a fixed multiprocessor count.
#[test]
fn grid_caps_are_written_as_the_plans_compute_them() {
    let mut capped = 0;
    for ch in CHAPTERS {
        let Some(source) = ch.kernel_source else { continue };
        assert!(!source.contains("132 *"), "kernels/{}.cu writes a grid cap for one card", ch.id);
        if source.contains("SMs * BLOCKS_PER_SM") {
            capped += 1;
            let stated: Vec<u64> = source
                .split("BLOCKS_PER_SM = ")
                .skip(1)
                .map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap())
                .collect();
            assert!(
                !stated.is_empty(),
                "kernels/{}.cu caps grids at SMs * BLOCKS_PER_SM but never says how many",
                ch.id
            );
            assert!(stated.iter().all(|&n| n == ktrav::ladder::BLOCKS_PER_SM), "kernels/{}.cu: {stated:?}", ch.id);
        }
    }
    assert!(capped >= 3, "K.3, K.5 and K.7 cap their grid-stride grids");
}
