//! K.6 on a real GPU: `spiral_scatter` and `spiral_gather` launched through
//! `ktrav::gpu`, checked against the simulator on the source's four kernel
//! cases and against the inverse closed form on shapes far too large to
//! simulate (one at `gridDim.y`'s limit, one past 2^31 elements), then
//! timed side by side with a plain device copy of the same bytes.

use crate::{simulate, spiral_position, Kernel, SOURCE_BLOCK, SOURCE_KERNEL_CASES};
use cudarc::driver::CudaSlice;
use ktrav::gpu::{compare, compare_with, test_value, Gpu, GpuSection, PushKernelArg};
use ktrav::{BlockOrder, Dim2, LaunchConfig};

/// Both entry points of `kernels/k6_spiral.cu`.
pub const KERNELS: [Kernel; 2] = [Kernel::Scatter, Kernel::Gather];

/// Shapes beyond the source, each with the block it is launched with, all
/// checked against [`spiral_position`]. Every launch covers the matrix in one
/// pass (the kernels have no grid-stride loop), so each block is chosen to
/// keep `gridDim.y` within CUDA's 65 535.
pub const LARGE_SHAPES: [(u64, u64, Dim2); 3] = [
    // Odd on both axes, so every ring has four sides and the edges are ragged.
    (4097, 4095, Dim2::new(32, 8)),
    // Tall extreme: a lone column, gridDim.y = 65 535 exactly.
    (65_535 * 1024, 1, Dim2::new(1, 1024)),
    // Wide extreme: two rows of 2^30 + 1, so the spiral's ranks and the flat
    // indices both pass 2^31 (8.6 GB per buffer).
    (2, (1 << 30) + 1, Dim2::new(1024, 1)),
];

/// The shape the bandwidth comparison runs on, and its block.
pub const BANDWIDTH_SHAPE: (u64, u64, Dim2) = (4097, 4095, Dim2::new(32, 8));

/// The kernels take `int rows, int cols`; every product and flat index
/// inside them is 64-bit, so only each dimension has to fit in an `int`.
fn int_dims(rows: u64, cols: u64) -> Result<(i32, i32), String> {
    let fit = |n: u64| i32::try_from(n).map_err(|_| format!("{n} does not fit the kernels' int rows/cols"));
    Ok((fit(rows)?, fit(cols)?))
}

/// The element at flat index `i` of every test input.
fn test_input(n: u64) -> Vec<f32> {
    let mut v = vec![0.0f32; n as usize];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(64);
    let chunk = v.len().div_ceil(threads).max(1 << 16);
    std::thread::scope(|scope| {
        for (k, part) in v.chunks_mut(chunk).enumerate() {
            scope.spawn(move || {
                for (j, x) in part.iter_mut().enumerate() {
                    *x = test_value((k * chunk + j) as u64);
                }
            });
        }
    });
    v
}

/// What both kernels must leave at output index `rank` of a `rows x cols`
/// test input: the input element the spiral visits `rank`-th.
pub fn expected(rank: u64, rows: u64, cols: u64) -> f32 {
    let (r, c) = spiral_position(rank, rows, cols);
    test_value(r * cols + c)
}

/// One launch of `kernel` reading `input` (on the device) into `out`,
/// which is poisoned first. Returns the kernel's time.
fn launch_once(
    gpu: &Gpu,
    kernel: Kernel,
    out: &mut CudaSlice<f32>,
    input: &CudaSlice<f32>,
    rows: u64,
    cols: u64,
    cfg: &LaunchConfig,
) -> Result<f32, String> {
    let f = gpu.function("k6_spiral", kernel.name())?;
    let (r, c) = int_dims(rows, cols)?;
    gpu.poison(out)?;
    // spiral_scatter / spiral_gather(float* out, const float* in, int rows, int cols)
    let mut args = gpu.args(&f);
    args.arg(&mut *out).arg(input).arg(&r).arg(&c);
    gpu.launch(args, cfg, 0)
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<(), String> {
    sec.line(format!(
        "the source's four cases ({SOURCE_BLOCK} blocks), each kernel against the simulator's output:"
    ));
    for (rows, cols) in SOURCE_KERNEL_CASES {
        let input = test_input(rows * cols);
        let cfg = LaunchConfig::for_matrix(rows, cols, SOURCE_BLOCK).map_err(|e| e.to_string())?;
        let dev_in = gpu.upload(&input)?;
        let mut out = gpu.poisoned::<f32>(input.len())?;
        for kernel in KERNELS {
            // The simulator builds the same for_matrix launch from the same block.
            let sim = simulate(kernel, &input, rows, cols, SOURCE_BLOCK, &BlockOrder::Forward).map_err(|e| e.to_string())?;
            let ms = launch_once(gpu, kernel, &mut out, &dev_in, rows, cols, &cfg)?;
            let label = format!("{rows}x{cols} {}, grid {}", kernel.name(), cfg.grid);
            sec.check(&label, &compare(&gpu.download(&out)?, &sim), Some(ms));
        }
    }

    sec.line("larger and extreme shapes, each kernel against the inverse closed form (out[rank] = in[position(rank)]):");
    for (rows, cols, block) in LARGE_SHAPES {
        large_shape(gpu, sec, rows, cols, block)?;
    }

    let (rows, cols, block) = BANDWIDTH_SHAPE;
    bandwidth(gpu, sec, rows, cols, block)
}

/// Both kernels on one shape too large for the simulator. The reference is
/// a function of the index, so no second host buffer is needed.
fn large_shape(gpu: &Gpu, sec: &mut GpuSection, rows: u64, cols: u64, block: Dim2) -> Result<(), String> {
    let n = rows * cols;
    let cfg = LaunchConfig::for_matrix(rows, cols, block).map_err(|e| e.to_string())?;
    // Input and output on the device, plus room to spare.
    let needed = 2 * n * 4 + (1 << 30);
    let (free, _) = gpu.ctx.mem_get_info().map_err(|e| format!("cuMemGetInfo failed ({e})"))?;
    if (free as u64) < needed {
        sec.line(format!(
            "  {rows}x{cols}: skipped, it needs {:.1} GB of device memory and {:.1} GB is free",
            needed as f64 / 1e9,
            free as f64 / 1e9
        ));
        return Ok(());
    }
    let dev_in = gpu.upload(&test_input(n))?; // the host copy is dropped at once
    let mut out = gpu.poisoned::<f32>(n as usize)?;
    for kernel in KERNELS {
        let ms = launch_once(gpu, kernel, &mut out, &dev_in, rows, cols, &cfg)?;
        let host = gpu.download(&out)?;
        let agreement = compare_with(&host, |j| expected(j as u64, rows, cols));
        let label = format!("{rows}x{cols} {}, {block} blocks, grid {}", kernel.name(), cfg.grid);
        sec.check(&label, &agreement, Some(ms));
    }
    Ok(())
}

/// Scatter's and gather's effective bandwidth beside a device-to-device copy
/// of the same bytes, measured in the same run. Scatter reads in order and
/// writes along the spiral; gather does the reverse. Printed, never asserted.
fn bandwidth(gpu: &Gpu, sec: &mut GpuSection, rows: u64, cols: u64, block: Dim2) -> Result<(), String> {
    const REPEATS: usize = 20;
    let n = rows * cols;
    let bytes = 2 * n * 4; // each element read once and written once
    let cfg = LaunchConfig::for_matrix(rows, cols, block).map_err(|e| e.to_string())?;
    let dev_in = gpu.upload(&test_input(n))?;
    let mut out = gpu.poisoned::<f32>(n as usize)?;
    let table = sec.bandwidth(gpu, &format!("{rows}x{cols} floats, {block} blocks"), n as usize * 4, REPEATS)?;
    for kernel in KERNELS {
        let side = match kernel {
            Kernel::Scatter => "coalesced reads, spiral writes",
            Kernel::Gather => "spiral reads, coalesced writes",
        };
        let label = format!("{} ({side})", kernel.name());
        table.row(sec, &label, bytes, || launch_once(gpu, kernel, &mut out, &dev_in, rows, cols, &cfg))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_launch_fits_in_one_pass_and_every_dimension_in_an_int() {
        let source = SOURCE_KERNEL_CASES.iter().map(|&(r, c)| (r, c, SOURCE_BLOCK));
        for (rows, cols, block) in source.chain(LARGE_SHAPES).chain([BANDWIDTH_SHAPE]) {
            let cfg = LaunchConfig::for_matrix(rows, cols, block).unwrap();
            assert!(cfg.threads_x() >= cols && cfg.threads_y() >= rows && cfg.grid.y as u64 <= ktrav::geometry::MAX_GRID_Y);
            int_dims(rows, cols).unwrap();
        }
        // The tall shape sits exactly at gridDim.y's limit; the wide one passes 2^31 elements.
        assert_eq!(LaunchConfig::for_matrix(LARGE_SHAPES[1].0, 1, LARGE_SHAPES[1].2).unwrap().grid.y, 65_535);
        assert!(LARGE_SHAPES[2].0 * LARGE_SHAPES[2].1 > 1 << 31);
        assert!(int_dims(1 << 31, 1).is_err());
    }

    #[test]
    fn the_closed_form_reference_is_what_the_simulated_kernels_produce() {
        for (rows, cols) in [(4, 4), (7, 5), (9, 6), (6, 9), (1, 13), (13, 1), (2, 17), (33, 31)] {
            let input = test_input(rows * cols);
            for kernel in KERNELS {
                let sim = simulate(kernel, &input, rows, cols, Dim2::new(4, 4), &BlockOrder::Reverse).unwrap();
                assert!(compare_with(&sim, |j| expected(j as u64, rows, cols)).ok(), "{rows}x{cols} {kernel:?}");
            }
        }
    }

    #[test]
    fn test_input_is_test_value_everywhere() {
        let v = test_input(300_001);
        assert!(v.iter().enumerate().all(|(i, &x)| x.to_bits() == test_value(i as u64).to_bits()));
    }
}
