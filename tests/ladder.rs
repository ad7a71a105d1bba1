//! Every chapter's ladder against its kernel file, read through `CHAPTERS`:
//! what a `.cu` file states about a version (its number, its
//! `__launch_bounds__`, the block its comment names) is what the version's
//! plan launches, on every shape the ladder runs, and the kernel source a
//! chapter reads is the file the build embeds.

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

#[test]
fn every_version_is_numbered_commented_and_bounded_as_its_plan_launches() {
    let mut versions = 0;
    for ch in CHAPTERS {
        for (i, v) in ch.versions.iter().enumerate() {
            versions += 1;
            let n = i + 1;
            let source = ch.kernel_source.unwrap();
            assert!(v.kernel.contains(&format!("_v{n}_")), "{}: version {n} is {}", ch.id, v.kernel);
            assert!(cu::declares(source, v.kernel), "kernels/{}.cu declares no {}", ch.id, v.kernel);
            let bounds = cu::launch_bounds(source, v.kernel).unwrap_or_else(|| panic!("{} states no __launch_bounds__", v.kernel));
            let comment = cu::version_comment(source, n, v.kernel).unwrap_or_else(|| panic!("{} has no // v{n} comment", v.kernel));
            assert!(cu::version_reason(source, n, v.kernel).is_some_and(|r| r.len() > 10), "{}: {comment}", v.kernel);
            for shape in plan_shapes() {
                for sms in SMS {
                    let plan = v.checked_plan(shape, sms).unwrap_or_else(|e| panic!("{} on {shape}: {e}", v.kernel));
                    let block = plan.cfg.block;
                    assert_eq!(block.count(), bounds as u64, "{} on {shape}: a {block} block, __launch_bounds__({bounds})", v.kernel);
                    if let Some((x, y)) = cu::stated_block(&comment) {
                        assert_eq!((block.x, block.y), (x, y), "{} on {shape}: its comment says blockDim = ({x}, {y})", v.kernel);
                    }
                }
            }
        }
    }
    assert!(versions >= CHAPTERS.iter().filter(|ch| !ch.versions.is_empty()).count());
}

/// A plan that launches a block its kernel is not written for is refused
/// before anything is launched: K.7's v4 steps as exactly one warp.
#[test]
fn a_plan_that_breaks_its_block_rule_is_refused() {
    let ch = CHAPTERS.iter().find(|ch| ch.versions.iter().any(|v| v.block == ktrav::ladder::BlockRule::Exactly(ktrav::Dim2::new(32, 1)))).unwrap();
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
