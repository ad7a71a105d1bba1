//! K.2 on a real GPU: both transpose kernels launched through `ktrav::gpu`,
//! checked against the simulator on the source's shapes and against the
//! plain transpose on shapes far too large to simulate.

use crate::{numbered, tiled_transpose, TileLayout, SOURCE_CASES, TILE};
use ktrav::gpu::{compare, compare_with, test_value, Gpu, GpuSection, PushKernelArg};
use ktrav::{BlockOrder, Dim2, LaunchConfig};

/// The two entry points of `kernels/k2_transpose.cu`.
pub const KERNELS: [(&str, TileLayout); 2] =
    [("transpose_tile32", TileLayout::Square), ("transpose_tile32_padded", TileLayout::Padded)];

/// How much of the GPU section to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The source's shapes, a large odd shape and the two extreme shapes.
    Default,
    /// All of that plus a 46341 x 46341 matrix: 2^31 + 1 elements, 8.6 GB.
    Large,
}

/// Shapes beyond the source's, checked against the plain transpose.
pub fn large_shapes(scale: Scale) -> Vec<(u64, u64)> {
    let mut v = vec![(8191, 8193), (1, 1 << 26), (1 << 26, 1)];
    if scale == Scale::Large {
        v.push((46_341, 46_341));
    }
    v
}

/// Launches one transpose kernel on a `rows x cols` input into a freshly
/// poisoned output; returns the output and the kernel time.
fn transpose_on_gpu(gpu: &Gpu, kernel: &str, input: &[f32], rows: u64, cols: u64) -> Result<(Vec<f32>, f32), String> {
    let f = gpu.function("k2_transpose", kernel)?;
    let cfg = LaunchConfig::for_matrix_strided(rows, cols, Dim2::new(TILE, TILE)).map_err(|e| e.to_string())?;
    let dev_in = gpu.upload(input)?;
    let mut out = gpu.poisoned::<f32>(input.len())?;
    let mut args = gpu.args(&f);
    args.arg(&mut out).arg(&dev_in).arg(&rows).arg(&cols);
    let ms = gpu.launch(args, &cfg, 0)?;
    Ok((gpu.download(&out)?, ms))
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection, scale: Scale) -> Result<(), String> {
    sec.line("the source's shapes, each kernel against the simulator's tiled transpose (tile 32):");
    for case in SOURCE_CASES {
        let input = numbered(case.rows, case.cols);
        for (kernel, layout) in KERNELS {
            let sim = tiled_transpose(&input, TILE, layout, &BlockOrder::Forward)?;
            let (out, ms) = transpose_on_gpu(gpu, kernel, input.as_slice(), case.rows, case.cols)?;
            let label = format!("{}x{} {kernel}", case.rows, case.cols);
            sec.check(&label, &compare(&out, sim.output.as_slice()), Some(ms));
        }
    }

    sec.line("larger shapes, each kernel against the plain transpose:");
    for (rows, cols) in large_shapes(scale) {
        let input: Vec<f32> = (0..rows * cols).map(test_value).collect();
        for (kernel, _) in KERNELS {
            let cfg = LaunchConfig::for_matrix_strided(rows, cols, Dim2::new(TILE, TILE)).map_err(|e| e.to_string())?;
            let (out, ms) = transpose_on_gpu(gpu, kernel, &input, rows, cols)?;
            // Output element j sits at (j / rows, j % rows): input (j % rows, j / rows).
            let agreement = compare_with(&out, |j| {
                let (r, c) = (j as u64 % rows, j as u64 / rows);
                test_value(r * cols + c)
            });
            let label = format!("{rows}x{cols} {kernel}, grid {}x{}, {} round(s)", cfg.grid.x, cfg.grid.y, cfg.rounds(rows));
            sec.check(&label, &agreement, Some(ms));
        }
    }

    bandwidth(gpu, sec, 8191, 8193)
}

/// Effective bandwidth of both kernels beside a device-to-device copy of the
/// same bytes, measured in the same run: the ratio is the point, and it is
/// printed, never asserted.
fn bandwidth(gpu: &Gpu, sec: &mut GpuSection, rows: u64, cols: u64) -> Result<(), String> {
    const REPEATS: usize = 20;
    let n = (rows * cols) as usize;
    let bytes = 2 * n as u64 * 4; // each element read once and written once
    let dev_in = gpu.upload(&(0..n as u64).map(test_value).collect::<Vec<f32>>())?;
    let mut out = gpu.poisoned::<f32>(n)?;
    let cfg = LaunchConfig::for_matrix_strided(rows, cols, Dim2::new(TILE, TILE)).map_err(|e| e.to_string())?;
    let table = sec.bandwidth(gpu, &format!("{rows}x{cols} floats"), n * 4, REPEATS)?;
    for (kernel, _) in KERNELS {
        let f = gpu.function("k2_transpose", kernel)?;
        table.row(sec, kernel, bytes, || {
            let mut args = gpu.args(&f);
            args.arg(&mut out).arg(&dev_in).arg(&rows).arg(&cols);
            gpu.launch(args, &cfg, 0)
        })?;
    }
    Ok(())
}
