//! K.6 on a real GPU: `spiral_scatter` and `spiral_gather` launched through
//! `ktrav_gpu` with the same launch plan as the simulator, checked against
//! the simulator on the source's four kernel cases and against the inverse
//! closed form on shapes far too large to simulate (one at `gridDim.y`'s
//! limit, one past 2^31 elements), then timed side by side with a plain
//! device copy of the same bytes.

use crate::{plan, simulate, spiral_position, Kernel, SOURCE_BLOCK, SOURCE_KERNEL_CASES};
use anyhow::{Context, Result};
use ktrav::chapter::NotOnTheLadder;
use ktrav::compare::{compare, compare_with, test_value};
use ktrav::ladder;
use ktrav::{BlockOrder, Dim2, LaunchConfig, Shape};
use ktrav_gpu::ladder::{Expected, Io, Ladder, Row, Yardstick};
use ktrav_gpu::section::{small_shapes, Role};
use ktrav_gpu::{Args, DeviceBuffer, Gpu, GpuSection, PushKernelArg};

/// Both entry points of `kernels/k6_spiral.cu`.
pub const KERNELS: [Kernel; 2] = [Kernel::Scatter, Kernel::Gather];

/// Shapes beyond the source, each with the block it is launched with, all
/// checked against [`spiral_position`]. Every launch covers the matrix in one
/// pass (the kernels have no grid-stride loop), so each block is chosen to
/// keep `gridDim.y` within CUDA's 65 535.
pub const LARGE_SHAPES: [(Shape, Dim2); 3] = [
    // Odd on both axes, so the edges are ragged and the innermost ring is a
    // lone column (the short side, 4095, is odd).
    (Shape::new(4097, 4095), Dim2::new(32, 8)),
    // Tall extreme: a lone column, gridDim.y = 65 535 exactly.
    (Shape::new(65_535 * 1024, 1), Dim2::new(1, 1024)),
    // Wide extreme: two rows of 2^30 + 1, so the spiral's ranks and the flat
    // indices both pass 2^31 (8.6 GB per buffer).
    (Shape::new(2, (1 << 30) + 1), Dim2::new(1024, 1)),
];

/// The shape the bandwidth comparison runs on, and its block.
pub const BANDWIDTH_SHAPE: (Shape, Dim2) = (Shape::new(4097, 4095), Dim2::new(32, 8));

/// The kernels take `int rows, int cols`; every product and flat index
/// inside them is 64-bit, so only each dimension has to fit in an `int`.
fn int_dims(shape: Shape) -> Result<(i32, i32)> {
    let fit = |n: u64| i32::try_from(n).with_context(|| format!("{n} does not fit the kernels' int rows/cols"));
    Ok((fit(shape.rows)?, fit(shape.cols)?))
}

/// The element at flat index `i` of every test input.
fn test_input(n: u64) -> Vec<f32> {
    ktrav::test_input(n, 0)
}

/// What both kernels must leave at output index `rank` of a `shape` test
/// input: the input element the spiral visits `rank`-th.
pub fn expected(rank: u64, shape: Shape) -> f32 {
    let (r, c) = spiral_position(rank, shape.rows, shape.cols);
    test_value(r * shape.cols + c)
}

/// One launch of `kernel` reading `input` (on the device) into `out`,
/// which is poisoned first. Returns the kernel's time.
fn launch_once(
    gpu: &Gpu,
    kernel: Kernel,
    out: &mut DeviceBuffer<f32>,
    input: &DeviceBuffer<f32>,
    shape: Shape,
    cfg: &LaunchConfig,
) -> Result<f32> {
    let f = gpu.function("k6_spiral", kernel.name())?;
    let (rows, cols) = int_dims(shape)?;
    gpu.poison(out)?;
    // spiral_scatter / spiral_gather(float* out, const float* in, int rows, int cols)
    let mut args = gpu.args(&f);
    args.arg(&mut *out).arg(input).arg(&rows).arg(&cols);
    gpu.launch(args, cfg, 0).with_context(|| format!("{} on a {shape} matrix", kernel.name()))
}

/// The chapter's GPU entry points, held by its [`ktrav::Chapter`]: the
/// whole section or the small-shape mode (`ktrav_gpu::section`), the
/// section at a reader's shape, and where the ladder times the exercises.
pub const ENTRY: ktrav_gpu::GpuEntry = ktrav_gpu::GpuEntry { checks, small, at_shape, ladder_shape };

/// Where the ladder times an exercise's solution (see
/// [`ktrav::GpuHooks::ladder_shape`]).
fn ladder_shape(_: &ktrav::Exercise) -> Result<Shape, NotOnTheLadder> {
    // spiral_gather with (32, 8) blocks on the first ladder shape.
    Ok(LADDER_SHAPES[0])
}

/// The block the teaching kernels are launched with beside the versions.
pub const TEACHING_BLOCK: Dim2 = Dim2::new(32, 8);

/// The small-shape mode: both teaching kernels against the simulator, and
/// every version against the inverse closed form, once on each small shape.
pub fn small(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    for shape in small_shapes() {
        let input = test_input(shape.elements());
        let cfg = plan(shape, TEACHING_BLOCK).with_context(|| format!("the launch over {shape}"))?;
        let dev_in = gpu.upload(&input)?;
        let mut out = gpu.poisoned::<f32>(input.len())?;
        for kernel in KERNELS {
            let sim = simulate(kernel, &input, shape, TEACHING_BLOCK, &BlockOrder::Forward)
                .with_context(|| format!("simulating {} on {shape}", kernel.name()))?;
            launch_once(gpu, kernel, &mut out, &dev_in, shape, &cfg)?;
            sec.run(kernel.name(), Role::Teaching, shape, &cfg, &compare(&gpu.download(&out)?, &sim));
        }
    }
    let gathered = gathered();
    ladder(&gathered, small_shapes()).validate(gpu, sec)
}

/// The section at a reader's shape (`--gpu`): both teaching kernels (where
/// one pass of [`TEACHING_BLOCK`] blocks covers the shape) and every
/// version, checked against the inverse closed form, then timed beside a
/// copy.
/// `Err` when its buffers do not fit in the free device memory.
pub fn at_shape(shape: Shape) -> Result<ktrav::SectionOutcome, ktrav_gpu::section::TooLarge> {
    let gathered = gathered();
    let ladder = ladder(&gathered, vec![shape]);
    ktrav_gpu::section::section_at(
        &crate::CHAPTER,
        shape,
        |sms| ladder.device_bytes(shape, sms),
        |gpu, sec| {
            let rows = match plan(shape, TEACHING_BLOCK) {
                Ok(cfg) => teaching_rows(shape, cfg),
                Err(why) => {
                    sec.line(format!(
                        "  the teaching kernels cannot cover {shape} with {TEACHING_BLOCK} blocks in one pass ({why})"
                    ));
                    vec![]
                }
            };
            ladder.at_shape(gpu, sec, shape, Yardstick::Copy, rows)
        },
    )
}

/// Both teaching kernels as rows of a ladder's table, launched on `cfg`.
fn teaching_rows<'f>(shape: Shape, cfg: LaunchConfig) -> Vec<Row<'f, f32>> {
    KERNELS
        .map(|kernel| {
            let label = format!("{} ({TEACHING_BLOCK} blocks)", kernel.name());
            Row::new(label, move |gpu, io: &mut Io<f32>| {
                launch_once(gpu, kernel, &mut io.out, &io.inputs[0], shape, &cfg)
            })
        })
        .into_iter()
        .collect()
}

/// The reference every version is checked against: `out[rank] = in[position(rank)]`.
fn gathered() -> impl Fn(Shape) -> Expected<f32> {
    |shape: Shape| -> Expected<f32> { Box::new(move |j| expected(j as u64, shape)) }
}

/// The chapter's ladder on `shapes`.
fn ladder(gathered: &dyn Fn(Shape) -> Expected<f32>, shapes: Vec<Shape>) -> Ladder<'_, f32> {
    Ladder {
        chapter: &crate::CHAPTER,
        push: version_args,
        inputs: 1,
        expected: gathered,
        against: "each version on every shape, against out[rank] = in[position(rank)] (output poisoned first)",
        shapes,
        runs: &[""],
        repeats: 20,
        check_timed: None,
    }
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    sec.line(format!("the source's four cases ({SOURCE_BLOCK} blocks), each kernel against the simulator's output:"));
    for shape in SOURCE_KERNEL_CASES {
        let input = test_input(shape.elements());
        let cfg = plan(shape, SOURCE_BLOCK).with_context(|| format!("the launch over {shape}"))?;
        let dev_in = gpu.upload(&input)?;
        let mut out = gpu.poisoned::<f32>(input.len())?;
        for kernel in KERNELS {
            // The simulator launches the same plan.
            let sim = simulate(kernel, &input, shape, SOURCE_BLOCK, &BlockOrder::Forward)
                .with_context(|| format!("simulating {} on {shape}", kernel.name()))?;
            let ms = launch_once(gpu, kernel, &mut out, &dev_in, shape, &cfg)?;
            let label = format!("{shape} {}, grid {}", kernel.name(), cfg.grid);
            sec.check(&label, &compare(&gpu.download(&out)?, &sim), Some(ms));
        }
    }

    sec.line(
        "larger and extreme shapes, each kernel against the inverse closed form (out[rank] = in[position(rank)]):",
    );
    for (shape, block) in LARGE_SHAPES {
        large_shape(gpu, sec, shape, block)?;
    }

    let (shape, block) = BANDWIDTH_SHAPE;
    bandwidth(gpu, sec, shape, block)?;
    how_fast(gpu, sec)
}

/// The shapes the versions are timed on.
pub const LADDER_SHAPES: [Shape; 2] = [Shape::new(4096, 4096), Shape::new(8192, 8192)];

// ANCHOR: ladder
/// How every version takes its arguments:
/// `spiral_vN(float* out, const float* in, size_t rows, size_t cols)`.
fn version_args<'a>(args: &mut Args<'a>, io: &'a mut Io<f32>) {
    args.arg(&mut io.out).arg(&io.inputs[0]).arg(&io.rows).arg(&io.cols);
}

/// "How fast can it go": every version on every shape of the ladder
/// against the inverse closed form (itself compared with the walk by this
/// crate's tests), the output poisoned first; then all of them and
/// both teaching kernels timed beside a copy, at 4096^2 and 8192^2.
fn how_fast(gpu: &Gpu, sec: &mut GpuSection) -> Result<()> {
    let gathered = gathered();
    let mut shapes = ladder::shapes(sec.large());
    // The source's four kernel cases and the rings that collapse to a line.
    shapes.extend(SOURCE_KERNEL_CASES.into_iter().chain(crate::COLLAPSED_RING_SHAPES));
    let ladder = ladder(&gathered, shapes);
    ladder.validate(gpu, sec)?;
    for shape in LADDER_SHAPES {
        let cfg = plan(shape, TEACHING_BLOCK).with_context(|| format!("the launch over {shape}"))?;
        let rows = teaching_rows(shape, cfg);
        ladder.time(gpu, sec, shape, &format!("{shape} floats, how fast can it go"), Yardstick::Copy, rows)?;
    }
    Ok(())
}
// ANCHOR_END: ladder

/// Both kernels on one shape too large for the simulator. The reference is
/// a function of the index, so no second host buffer is needed.
fn large_shape(gpu: &Gpu, sec: &mut GpuSection, shape: Shape, block: Dim2) -> Result<()> {
    let n = shape.elements();
    let cfg = plan(shape, block).with_context(|| format!("the launch over {shape}"))?;
    // Input and output on the device, plus room to spare.
    let needed = 2 * n * 4 + (1 << 30);
    let free = gpu.free_memory()?;
    if (free as u64) < needed {
        sec.line(format!(
            "  {shape}: skipped, it needs {:.1} GB of device memory and {:.1} GB is free",
            needed as f64 / 1e9,
            free as f64 / 1e9
        ));
        return Ok(());
    }
    let dev_in = gpu.upload(&test_input(n))?; // the host copy is dropped at once
    let mut out = gpu.poisoned::<f32>(n as usize)?;
    for kernel in KERNELS {
        let ms = launch_once(gpu, kernel, &mut out, &dev_in, shape, &cfg)?;
        let host = gpu.download(&out)?;
        let agreement = compare_with(&host, |j| expected(j as u64, shape));
        let label = format!("{shape} {}, {block} blocks, grid {}", kernel.name(), cfg.grid);
        sec.check(&label, &agreement, Some(ms));
    }
    Ok(())
}

/// Scatter's and gather's effective bandwidth beside a device-to-device copy
/// of the same bytes, measured in the same run. Scatter reads in order and
/// writes along the spiral; gather does the reverse. Printed, never asserted.
fn bandwidth(gpu: &Gpu, sec: &mut GpuSection, shape: Shape, block: Dim2) -> Result<()> {
    const REPEATS: usize = 20;
    let n = shape.elements();
    let bytes = 2 * n * 4; // each element read once and written once
    let cfg = plan(shape, block).with_context(|| format!("the launch over {shape}"))?;
    let dev_in = gpu.upload(&test_input(n))?;
    let mut out = gpu.poisoned::<f32>(n as usize)?;
    let table = sec.bandwidth(gpu, &format!("{shape} floats, {block} blocks"), n as usize * 4, REPEATS)?;
    for kernel in KERNELS {
        let side = match kernel {
            Kernel::Scatter => "coalesced reads, spiral writes",
            Kernel::Gather => "spiral reads, coalesced writes",
        };
        let label = format!("{} ({side})", kernel.name());
        table.row(sec, &label, bytes, || launch_once(gpu, kernel, &mut out, &dev_in, shape, &cfg))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_launch_fits_in_one_pass_and_every_dimension_in_an_int() {
        let source = SOURCE_KERNEL_CASES.iter().map(|&shape| (shape, SOURCE_BLOCK));
        for (shape, block) in source.chain(LARGE_SHAPES).chain([BANDWIDTH_SHAPE]) {
            let cfg = plan(shape, block).unwrap();
            assert!(cfg.threads_x() >= shape.cols && cfg.threads_y() >= shape.rows);
            assert!(cfg.grid.y as u64 <= ktrav::geometry::MAX_GRID_Y);
            int_dims(shape).unwrap();
        }
        // The tall shape sits exactly at gridDim.y's limit; the wide one passes 2^31 elements.
        assert_eq!(plan(LARGE_SHAPES[1].0, LARGE_SHAPES[1].1).unwrap().grid.y, 65_535);
        assert!(LARGE_SHAPES[2].0.elements() > 1 << 31);
        assert!(int_dims(Shape::new(1 << 31, 1)).is_err());
    }

    #[test]
    fn the_closed_form_reference_is_what_the_simulated_kernels_produce() {
        for (rows, cols) in [(4, 4), (7, 5), (9, 6), (6, 9), (1, 13), (13, 1), (2, 17), (33, 31)] {
            let shape = Shape::new(rows, cols);
            let input = test_input(shape.elements());
            for kernel in KERNELS {
                let sim = simulate(kernel, &input, shape, Dim2::new(4, 4), &BlockOrder::Reverse).unwrap();
                assert!(compare_with(&sim, |j| expected(j as u64, shape)).ok(), "{shape} {kernel:?}");
            }
        }
    }

    #[test]
    fn test_input_is_test_value_everywhere() {
        let v = test_input(300_001);
        assert!(v.iter().enumerate().all(|(i, &x)| x.to_bits() == test_value(i as u64).to_bits()));
    }
}
