//! K.3 on a real GPU: the 2D copy under both mappings, checked against the
//! simulator on the source's cases and against the source matrix on large
//! ones, and timed side by side, which is where coalescing shows. Every
//! launch is the one [`Mapping::launch`] plans, as in the simulator.

use crate::{simulate_copy, Mapping, SOURCE_CASES};
use anyhow::{Context, Result};
use ktrav::chapter::NotOnTheLadder;
use ktrav::compare::{compare, test_value};
use ktrav::ladder;
use ktrav::{BlockOrder, Dim2, LaunchConfig, Shape};
use ktrav_gpu::ladder::{Expected, Io, Ladder, Row, Yardstick};
use ktrav_gpu::section::{small_shapes, Role};
use ktrav_gpu::{Args, DeviceBuffer, Gpu, GpuSection, PushKernelArg};

/// Queues the mapping's kernel on `cfg` from `src` into `dst` and waits;
/// returns the kernel's time.
fn launch_copy(
    gpu: &Gpu,
    mapping: Mapping,
    cfg: &LaunchConfig,
    dst: &mut DeviceBuffer<f32>,
    src: &DeviceBuffer<f32>,
    shape: Shape,
) -> Result<f32> {
    let f = gpu.function(crate::CHAPTER.id, mapping.kernel())?;
    let mut args = gpu.args(&f);
    args.arg(dst).arg(src).arg(&shape.rows).arg(&shape.cols);
    gpu.launch(args, cfg, 0).with_context(|| format!("{} on {shape}", mapping.kernel()))
}

/// Copies `src` on the GPU into a freshly poisoned buffer; returns the copy
/// and the kernel's time.
fn copy_on_gpu(gpu: &Gpu, mapping: Mapping, cfg: &LaunchConfig, src: &[f32], shape: Shape) -> Result<(Vec<f32>, f32)> {
    let dev_src = gpu.upload(src)?;
    let mut dst = gpu.poisoned::<f32>(src.len())?;
    let ms = launch_copy(gpu, mapping, cfg, &mut dst, &dev_src, shape)?;
    Ok((gpu.download(&dst)?, ms))
}

/// The chapter's GPU entry points, held by its [`ktrav::Chapter`]: the
/// whole section or the small-shape mode (`ktrav_gpu::section`), the
/// section at a reader's shape, and where the ladder times the exercises.
pub const ENTRY: ktrav_gpu::GpuEntry = ktrav_gpu::GpuEntry { checks, small, at_shape, ladder_shape };

/// Where the ladder times an exercise's solution (see
/// [`ktrav::GpuHooks::ladder_shape`]).
fn ladder_shape(_: &ktrav::Exercise) -> Result<Shape, NotOnTheLadder> {
    // copy_x_to_col with (32, 8) blocks, the exercise's launch.
    Ok(LADDER_SHAPE)
}

/// The block the two mappings are launched with beside the versions.
pub const TEACHING_BLOCK: Dim2 = Dim2::new(32, 8);

/// The small-shape mode: both mappings against the simulated copy, and
/// every version against its source, once on each small shape.
pub fn small(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    for shape in small_shapes() {
        let src: Vec<f32> = (0..shape.elements()).map(test_value).collect();
        for mapping in [Mapping::XToCol, Mapping::XToRow] {
            let cfg = mapping.launch(shape, TEACHING_BLOCK)?;
            let sim = simulate_copy(mapping, &src, shape, &cfg, &BlockOrder::Forward);
            let (out, _) = copy_on_gpu(gpu, mapping, &cfg, &src, shape)?;
            sec.run(mapping.kernel(), Role::Teaching, shape, &cfg, &compare(&out, &sim));
        }
    }
    ladder(&copied(), small_shapes()).validate(gpu, sec)
}

/// The section at a reader's shape (`--gpu`): both mappings (each where
/// its grid can cover the shape) and every version against the source,
/// then timed beside a device copy.
/// `Err` when its buffers do not fit in the free device memory.
pub fn at_shape(shape: Shape) -> Result<ktrav::SectionOutcome, ktrav_gpu::section::TooLarge> {
    let expected = copied();
    let ladder = ladder(&expected, vec![shape]);
    ktrav_gpu::section::section_at(
        &crate::CHAPTER,
        shape,
        |sms| ladder.device_bytes(shape, sms),
        |gpu, sec| {
            let rows = teaching_rows(sec, shape);
            ladder.at_shape(gpu, sec, shape, Yardstick::Copy, rows)
        },
    )
}

/// The copy every version is checked against: its source.
fn copied() -> impl Fn(Shape) -> Expected<f32> {
    |_: Shape| -> Expected<f32> { Box::new(|i| test_value(i as u64)) }
}

/// The chapter's ladder on `shapes`.
fn ladder(expected: &dyn Fn(Shape) -> Expected<f32>, shapes: Vec<Shape>) -> Ladder<'_, f32> {
    Ladder {
        chapter: &crate::CHAPTER,
        push: version_args,
        inputs: 1,
        expected,
        against: "each version on every shape, against its source (copy poisoned first)",
        shapes,
        runs: &[""],
        repeats: 20,
        check_timed: None,
    }
}

/// Both mappings as rows of a ladder's table on `shape`; a mapping whose
/// grid cannot cover the shape says so in a line instead.
fn teaching_rows<'f>(sec: &mut GpuSection, shape: Shape) -> Vec<Row<'f, f32>> {
    let block = TEACHING_BLOCK;
    let mut rows = Vec::new();
    for mapping in [Mapping::XToCol, Mapping::XToRow] {
        match mapping.launch(shape, block) {
            Ok(cfg) => {
                let label = format!("{} ({block} blocks)", mapping.kernel());
                rows.push(Row::new(label, move |gpu, io: &mut Io<f32>| {
                    launch_copy(gpu, mapping, &cfg, &mut io.out, &io.inputs[0], shape)
                }));
            }
            Err(why) => sec.line(format!("  {shape} {}: not launchable with this mapping ({why})", mapping.kernel())),
        }
    }
    rows
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    sec.line("the source's cases, both mappings, each against the simulated copy:");
    for case in SOURCE_CASES {
        let shape = case.shape;
        let src: Vec<f32> = (0..shape.elements()).map(test_value).collect();
        for mapping in [Mapping::XToCol, Mapping::XToRow] {
            let cfg = mapping.launch(shape, case.block)?;
            let sim = simulate_copy(mapping, &src, shape, &cfg, &BlockOrder::Forward);
            let (out, ms) = copy_on_gpu(gpu, mapping, &cfg, &src, shape)?;
            sec.check(&format!("{shape} {}", mapping.kernel()), &compare(&out, &sim), Some(ms));
        }
    }

    sec.line("large and extreme shapes (32x8 blocks), each copy against its source:");
    let block = Dim2::new(32, 8);
    for shape in [Shape::new(8191, 8193), Shape::new(1, 1 << 26), Shape::new(1 << 26, 1)] {
        let src: Vec<f32> = (0..shape.elements()).map(test_value).collect();
        for mapping in [Mapping::XToCol, Mapping::XToRow] {
            match mapping.launch(shape, block) {
                Ok(cfg) => {
                    let (out, ms) = copy_on_gpu(gpu, mapping, &cfg, &src, shape)?;
                    sec.check(&format!("{shape} {}", mapping.kernel()), &compare(&out, &src), Some(ms));
                }
                // The mapping decides which axis meets gridDim.y's limit.
                Err(why) => {
                    sec.line(format!("  {shape} {}: not launchable with this mapping ({why})", mapping.kernel()))
                }
            }
        }
    }
    bandwidth(gpu, sec, Shape::new(8191, 8193), block)?;
    how_fast(gpu, sec)
}

/// The shape the versions are timed on.
pub const LADDER_SHAPE: Shape = Shape::new(8192, 8192);

// ANCHOR: ladder
/// How every version takes its arguments:
/// `copy_vN(float* dst, const float* src, size_t rows, size_t cols)`.
fn version_args<'a>(args: &mut Args<'a>, io: &'a mut Io<f32>) {
    args.arg(&mut io.out).arg(&io.inputs[0]).arg(&io.rows).arg(&io.cols);
}

/// "How fast can it go": every version on every shape of the ladder
/// against its source, the copy poisoned first; then all of them, and the
/// chapter's two mappings, timed beside a device copy in one run.
fn how_fast(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    let expected = copied();
    let ladder = ladder(&expected, ladder::shapes(sec.large()));
    ladder.validate(gpu, sec)?;
    let shape = LADDER_SHAPE;
    let rows = teaching_rows(sec, shape);
    ladder.time(gpu, sec, shape, &format!("{shape} floats, how fast can it go"), Yardstick::Copy, rows)
}
// ANCHOR_END: ladder

/// Both mappings' effective bandwidth beside a device-to-device copy of the
/// same bytes, in one run. Printed for the reader; never asserted.
fn bandwidth(gpu: &Gpu, sec: &mut GpuSection, shape: Shape, block: Dim2) -> Result<()> {
    const REPEATS: usize = 20;
    let n = shape.elements() as usize;
    let bytes = 2 * n as u64 * 4;
    let dev_src = gpu.upload(&(0..n as u64).map(test_value).collect::<Vec<f32>>())?;
    let mut dst = gpu.poisoned::<f32>(n)?;
    let table = sec.bandwidth(gpu, &format!("{shape} floats, {block} blocks"), n * 4, REPEATS)?;
    for mapping in [Mapping::XToCol, Mapping::XToRow] {
        let cfg = mapping.launch(shape, block)?;
        let label = format!("{} ({})", mapping.kernel(), mapping.name());
        table.row(sec, &label, bytes, || launch_copy(gpu, mapping, &cfg, &mut dst, &dev_src, shape))?;
    }
    Ok(())
}
