//! K.2 on a real GPU: both transpose kernels launched through `ktrav_gpu`,
//! checked against the simulator on the source's shapes and against the
//! plain transpose on shapes far too large to simulate. Every launch is the
//! one [`transpose_launch`] plans, as in the simulator.

use crate::{
    numbered, tiled_transpose, transpose_launch, transposed_from, TileLayout, TransposeLaunch, SOURCE_CASES, TILE,
};
use anyhow::{Context, Result};
use ktrav::chapter::NotOnTheLadder;
use ktrav::compare::{compare, compare_with, test_value};
use ktrav::ladder;
use ktrav::{BlockOrder, Shape};
use ktrav_gpu::ladder::{Expected, Io, Ladder, Row, Yardstick};
use ktrav_gpu::section::{small_shapes, Role};
use ktrav_gpu::{Args, DeviceBuffer, Gpu, GpuSection, PushKernelArg};

/// The tiles of the two entry points of `kernels/k2_transpose.cu`.
pub const LAYOUTS: [TileLayout; 2] = [TileLayout::Square, TileLayout::Padded];

/// Shapes beyond the source's, checked against the plain transpose; with
/// `large`, also a 46341 x 46341 matrix: 2^31 + 4633 elements, 8.6 GB.
pub fn large_shapes(large: bool) -> Vec<Shape> {
    let mut v = vec![Shape::new(8191, 8193), Shape::new(1, 1 << 26), Shape::new(1 << 26, 1)];
    if large {
        v.push(Shape::new(46_341, 46_341));
    }
    v
}

/// Queues one planned launch from `input` into `out` and waits; returns
/// the kernel's time.
fn launch_transpose(
    gpu: &Gpu,
    launch: &TransposeLaunch,
    out: &mut DeviceBuffer<f32>,
    input: &DeviceBuffer<f32>,
    shape: Shape,
) -> Result<f32> {
    let f = gpu.function(crate::CHAPTER.id, launch.kernel())?;
    let mut args = gpu.args(&f);
    args.arg(out).arg(input).arg(&shape.rows).arg(&shape.cols);
    gpu.launch(args, &launch.cfg, TransposeLaunch::SHARED_BYTES)
        .with_context(|| format!("{} on {shape}", launch.kernel()))
}

/// Transposes `input` on the GPU into a freshly poisoned output; returns
/// the output and the kernel time.
fn transpose_on_gpu(gpu: &Gpu, launch: &TransposeLaunch, input: &[f32], shape: Shape) -> Result<(Vec<f32>, f32)> {
    let dev_in = gpu.upload(input)?;
    let mut out = gpu.poisoned::<f32>(input.len())?;
    let ms = launch_transpose(gpu, launch, &mut out, &dev_in, shape)?;
    Ok((gpu.download(&out)?, ms))
}

/// The chapter's GPU entry points, held by its [`ktrav::Chapter`]: the
/// whole section or the small-shape mode (`ktrav_gpu::section`), the
/// section at a reader's shape, and where the ladder times the exercises.
pub const ENTRY: ktrav_gpu::GpuEntry = ktrav_gpu::GpuEntry { checks, small, at_shape, ladder_shape };

/// Where the ladder times an exercise's solution (see
/// [`ktrav::GpuHooks::ladder_shape`]).
fn ladder_shape(_: &ktrav::Exercise) -> Result<Shape, NotOnTheLadder> {
    // The teaching transpose of every tile layout, the padded one among
    // them, with the exercise's (TILE, TILE) blocks and capped grid.
    Ok(LADDER_SHAPE)
}

/// The small-shape mode: both teaching kernels against the simulator's
/// tiled transpose, and every version against the plain transpose, once on
/// each small shape.
pub fn small(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    for shape in small_shapes() {
        let input = numbered(shape);
        for layout in LAYOUTS {
            let sim = tiled_transpose(&input, TILE, layout, &BlockOrder::Forward)?;
            let launch = transpose_launch(layout, shape, TILE)?;
            let (out, _) = transpose_on_gpu(gpu, &launch, input.as_slice(), shape)?;
            sec.run(launch.kernel(), Role::Teaching, shape, &launch.cfg, &compare(&out, sim.output.as_slice()));
        }
    }
    ladder(&transposed(), small_shapes()).validate(gpu, sec)
}

/// The section at a reader's shape (`--gpu`): both teaching kernels and
/// every version against the plain transpose, then timed beside a copy.
/// `Err` when its buffers do not fit in the free device memory.
pub fn at_shape(shape: Shape) -> Result<ktrav::SectionOutcome, ktrav_gpu::section::TooLarge> {
    let expected = transposed();
    let ladder = ladder(&expected, vec![shape]);
    ktrav_gpu::section::section_at(
        &crate::CHAPTER,
        shape,
        |sms| ladder.device_bytes(shape, sms),
        |gpu, sec| ladder.at_shape(gpu, sec, shape, Yardstick::Copy, teaching_rows(shape)?),
    )
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    sec.line("the source's shapes, each kernel against the simulator's tiled transpose (tile 32):");
    for case in SOURCE_CASES {
        let input = numbered(case.shape);
        for layout in LAYOUTS {
            let sim = tiled_transpose(&input, TILE, layout, &BlockOrder::Forward)?;
            let launch = transpose_launch(layout, case.shape, TILE)?;
            let (out, ms) = transpose_on_gpu(gpu, &launch, input.as_slice(), case.shape)?;
            let label = format!("{} {}", case.shape, launch.kernel());
            sec.check(&label, &compare(&out, sim.output.as_slice()), Some(ms));
        }
    }

    sec.line("larger shapes, each kernel against the plain transpose:");
    for shape in large_shapes(sec.large()) {
        let input: Vec<f32> = (0..shape.elements()).map(test_value).collect();
        for layout in LAYOUTS {
            let launch = transpose_launch(layout, shape, TILE)?;
            let (out, ms) = transpose_on_gpu(gpu, &launch, &input, shape)?;
            let agreement = compare_with(&out, |j| test_value(transposed_from(shape, j as u64)));
            let (grid, rounds) = (launch.cfg.grid, launch.rounds);
            let label = format!("{shape} {}, grid {}x{}, {rounds} round(s)", launch.kernel(), grid.x, grid.y);
            sec.check(&label, &agreement, Some(ms));
        }
    }

    bandwidth(gpu, sec, Shape::new(8191, 8193))?;
    how_fast(gpu, sec)
}

// ANCHOR: ladder
/// How every version takes its arguments:
/// `transpose_vN(float* out, const float* in, size_t rows, size_t cols)`.
fn version_args<'a>(args: &mut Args<'a>, io: &'a mut Io<f32>) {
    args.arg(&mut io.out).arg(&io.inputs[0]).arg(&io.rows).arg(&io.cols);
}

/// "How fast can it go": every version on every shape of the ladder,
/// against the plain transpose with the output poisoned first; then all of
/// them, and the two teaching kernels, timed beside a copy in one run.
fn how_fast(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    let expected = transposed();
    let ladder = ladder(&expected, ladder::shapes(sec.large()));
    ladder.validate(gpu, sec)?;
    let shape = LADDER_SHAPE;
    let rows = teaching_rows(shape)?;
    ladder.time(gpu, sec, shape, &format!("{shape} floats, how fast can it go"), Yardstick::Copy, rows)
}

/// The plain transpose every version is checked against.
fn transposed() -> impl Fn(Shape) -> Expected<f32> {
    |shape: Shape| -> Expected<f32> { Box::new(move |j| test_value(transposed_from(shape, j as u64))) }
}

/// The chapter's ladder on `shapes`.
fn ladder(expected: &dyn Fn(Shape) -> Expected<f32>, shapes: Vec<Shape>) -> Ladder<'_, f32> {
    Ladder {
        chapter: &crate::CHAPTER,
        push: version_args,
        inputs: 1,
        expected,
        against: "each version on every shape, against the plain transpose (output poisoned first)",
        shapes,
        runs: &[""],
        repeats: 20,
        check_timed: None,
    }
}

/// Both teaching kernels as rows of a ladder's table on `shape`.
fn teaching_rows<'f>(shape: Shape) -> Result<Vec<Row<'f, f32>>> {
    let teaching = LAYOUTS.map(|layout| -> Result<Row<'f, f32>> {
        let launch = transpose_launch(layout, shape, TILE)?;
        Ok(Row::new(launch.kernel(), move |gpu, io| launch_transpose(gpu, &launch, &mut io.out, &io.inputs[0], shape)))
    });
    teaching.into_iter().collect()
}
// ANCHOR_END: ladder

/// The shape the versions are timed on.
pub const LADDER_SHAPE: Shape = Shape::new(8192, 8192);

/// Effective bandwidth of both kernels beside a device-to-device copy of the
/// same bytes, measured in the same run: the ratio is the point, and it is
/// printed, never asserted.
fn bandwidth(gpu: &Gpu, sec: &mut GpuSection, shape: Shape) -> Result<()> {
    const REPEATS: usize = 20;
    let n = shape.elements() as usize;
    let bytes = 2 * n as u64 * 4; // each element read once and written once
    let dev_in = gpu.upload(&(0..n as u64).map(test_value).collect::<Vec<f32>>())?;
    let mut out = gpu.poisoned::<f32>(n)?;
    let table = sec.bandwidth(gpu, &format!("{shape} floats"), n * 4, REPEATS)?;
    for layout in LAYOUTS {
        let launch = transpose_launch(layout, shape, TILE)?;
        table.row(sec, launch.kernel(), bytes, || launch_transpose(gpu, &launch, &mut out, &dev_in, shape))?;
    }
    Ok(())
}
