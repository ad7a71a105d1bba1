//! K.3 on a real GPU: the 2D copy under both mappings, checked against the
//! simulator on the source's cases and against the source matrix on large
//! ones, and timed side by side, which is where coalescing shows.

use crate::{copy_body, Mapping, SOURCE_CASES};
use ktrav::gpu::{compare, test_value, Gpu, GpuSection, PushKernelArg};
use ktrav::{BlockOrder, Dim2};

fn kernel(mapping: Mapping) -> &'static str {
    match mapping {
        Mapping::XToCol => "copy_x_to_col",
        Mapping::XToRow => "copy_x_to_row",
    }
}

/// Copies `src` on the GPU into a freshly poisoned buffer; returns the copy
/// and the kernel's time.
fn copy_on_gpu(gpu: &Gpu, mapping: Mapping, src: &[f32], rows: u64, cols: u64, block: Dim2) -> Result<(Vec<f32>, f32), String> {
    let cfg = mapping.launch(rows, cols, block)?;
    let f = gpu.function("k3_grid_mapping", kernel(mapping))?;
    let dev_src = gpu.upload(src)?;
    let mut dst = gpu.poisoned::<f32>(src.len())?;
    let mut args = gpu.args(&f);
    args.arg(&mut dst).arg(&dev_src).arg(&rows).arg(&cols);
    let ms = gpu.launch(args, &cfg, 0)?;
    Ok((gpu.download(&dst)?, ms))
}

/// Every cross-check of the chapter on the GPU.
pub fn checks(gpu: &Gpu, sec: &mut GpuSection) -> Result<(), String> {
    sec.line("the source's cases, both mappings, each against the simulated copy:");
    for case in SOURCE_CASES {
        let (rows, cols) = (case.rows, case.cols);
        let src: Vec<f32> = (0..rows * cols).map(test_value).collect();
        for mapping in [Mapping::XToCol, Mapping::XToRow] {
            let cfg = mapping.launch(rows, cols, case.block)?;
            let mut sim = vec![0.0f32; src.len()];
            ktrav::launch(&cfg, &BlockOrder::Forward, |t| copy_body(mapping, t, &src, &mut sim, rows, cols));
            let (out, ms) = copy_on_gpu(gpu, mapping, &src, rows, cols, case.block)?;
            sec.check(&format!("{rows}x{cols} {}", kernel(mapping)), &compare(&out, &sim), Some(ms));
        }
    }

    sec.line("large and extreme shapes (32x8 blocks), each copy against its source:");
    let block = Dim2::new(32, 8);
    for (rows, cols) in [(8191u64, 8193u64), (1, 1 << 26), (1 << 26, 1)] {
        let src: Vec<f32> = (0..rows * cols).map(test_value).collect();
        for mapping in [Mapping::XToCol, Mapping::XToRow] {
            match mapping.launch(rows, cols, block) {
                Ok(_) => {
                    let (out, ms) = copy_on_gpu(gpu, mapping, &src, rows, cols, block)?;
                    sec.check(&format!("{rows}x{cols} {}", kernel(mapping)), &compare(&out, &src), Some(ms));
                }
                // The mapping decides which axis meets gridDim.y's limit.
                Err(why) => sec.line(format!("  {rows}x{cols} {}: not launchable with this mapping ({why})", kernel(mapping))),
            }
        }
    }
    bandwidth(gpu, sec, 8191, 8193, block)
}

/// Both mappings' effective bandwidth beside a device-to-device copy of the
/// same bytes, in one run. Printed for the reader; never asserted.
fn bandwidth(gpu: &Gpu, sec: &mut GpuSection, rows: u64, cols: u64, block: Dim2) -> Result<(), String> {
    const REPEATS: usize = 20;
    let n = (rows * cols) as usize;
    let bytes = 2 * n as u64 * 4;
    let dev_src = gpu.upload(&(0..n as u64).map(test_value).collect::<Vec<f32>>())?;
    let mut dst = gpu.poisoned::<f32>(n)?;
    let table = sec.bandwidth(gpu, &format!("{rows}x{cols} floats, {block} blocks"), n * 4, REPEATS)?;
    for mapping in [Mapping::XToCol, Mapping::XToRow] {
        let cfg = mapping.launch(rows, cols, block)?;
        let f = gpu.function("k3_grid_mapping", kernel(mapping))?;
        let label = format!("{} ({})", kernel(mapping), mapping.name());
        table.row(sec, &label, bytes, || {
            let mut args = gpu.args(&f);
            args.arg(&mut dst).arg(&dev_src).arg(&rows).arg(&cols);
            gpu.launch(args, &cfg, 0)
        })?;
    }
    Ok(())
}
