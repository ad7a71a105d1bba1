//! The runner: an open device with one stream, the embedded kernels loaded
//! once per file, buffers that start poisoned, and launches whose every
//! error is checked. Chapters reach the GPU only through this type.

use super::probe::{probe, DeviceInfo, Probe};
use crate::geometry::LaunchConfig;
use crate::kernels;
use anyhow::{anyhow, bail, Context, Result};
use cudarc::driver::{sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr};
use cudarc::driver::{LaunchArgs, ValidAsZeroBits};
use cudarc::nvrtc::Ptx;
use std::sync::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// Kernel arguments are pushed with `.arg(..)`, which this trait provides.
pub use cudarc::driver::PushKernelArg;

/// A buffer in device memory.
pub type DeviceBuffer<T> = CudaSlice<T>;
/// One `__global__` function, ready to launch.
pub type Kernel = CudaFunction;
/// A launch being assembled: push arguments with `.arg(..)`.
pub type Args<'a> = LaunchArgs<'a>;

// ANCHOR: runner
/// An open device with one stream: what every chapter's GPU section uses
/// to load the embedded kernels, move data and launch.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    pub info: DeviceInfo,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

/// A 32-bit pattern written over every output buffer before a launch. As an
/// `f32` it is a NaN, as an `i32` it is 2143346349: an element still holding
/// it after the launch is one the kernel never wrote.
pub const POISON_WORD: u32 = 0x7FC0_DEAD;

/// Opens device 0, or says in one line why not.
pub fn open() -> std::result::Result<Gpu, String> {
    match probe() {
        Probe::Available { ctx, info } => {
            let stream = ctx.default_stream();
            Ok(Gpu { ctx, stream, info, modules: Mutex::new(HashMap::new()) })
        }
        Probe::Unavailable { reason } => Err(reason),
    }
}

impl Gpu {
    /// The kernel `function` of `kernels/<file>.cu`. The file's embedded
    /// fatbin is loaded on first use and kept; the driver picks the sm_80
    /// or sm_90 machine code, or compiles the compute_80 PTX for a newer
    /// GPU. Nothing here runs below compute capability 8.0.
    pub fn function(&self, file: &str, function: &str) -> Result<Kernel> {
        let module = self.module(file)?;
        module.load_function(function).with_context(|| format!("kernels/{file}.cu has no kernel {function}"))
    }

    fn module(&self, file: &str) -> Result<Arc<CudaModule>> {
        let kernel = kernels::find(file).ok_or_else(|| anyhow!("there is no kernels/{file}.cu"))?;
        if let Some(m) = self.modules.lock().expect("module cache").get(kernel.name) {
            return Ok(m.clone());
        }
        let fatbin = kernel.fatbin.ok_or_else(|| {
            anyhow!("kernels not embedded: this binary was built without nvcc (run scripts/install-nvcc, then rebuild)")
        })?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(fatbin.to_vec()))
            .with_context(|| format!("loading kernels/{file}.cu failed"))?;
        self.modules.lock().expect("module cache").insert(kernel.name, module.clone());
        Ok(module)
    }

    /// Copies a host slice to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        self.stream.clone_htod(host).context("copy to device failed")
    }

    /// Overwrites an existing device buffer with a host slice of its length.
    pub fn write<T: DeviceRepr>(&self, host: &[T], dev: &mut DeviceBuffer<T>) -> Result<()> {
        self.stream.memcpy_htod(host, dev).context("copy to device failed")
    }

    /// A new device buffer of `len` elements, every 32-bit word set to
    /// [`POISON_WORD`].
    pub fn poisoned<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        // SAFETY: the buffer is filled by `poison` before anyone reads it.
        let mut buf = unsafe { self.stream.alloc::<T>(len) }
            .with_context(|| format!("device allocation of {len} elements failed"))?;
        self.poison(&mut buf)?;
        Ok(buf)
    }

    /// A new device buffer of `len` zero elements, for kernels whose input
    /// is defined to start at zero.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        self.stream.alloc_zeros::<T>(len).with_context(|| format!("device allocation of {len} elements failed"))
    }

    /// Overwrites every 32-bit word of `buf` with [`POISON_WORD`].
    pub fn poison<T: DeviceRepr>(&self, buf: &mut DeviceBuffer<T>) -> Result<()> {
        let size = std::mem::size_of::<T>();
        if !size.is_multiple_of(4) {
            bail!("poisoning needs elements made of 32-bit words, not {size}-byte ones");
        }
        let words = buf.len() * size / 4;
        let (ptr, _sync) = buf.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` addresses `words` 32-bit words owned by `buf`.
        let status = unsafe { sys::cuMemsetD32Async(ptr, POISON_WORD, words, self.stream.cu_stream()) };
        check(status, "poisoning the output buffer")
    }

    /// Copies a device buffer back to the host (waits for the stream).
    pub fn download<T: DeviceRepr>(&self, dev: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.stream.clone_dtoh(dev).context("copy from device failed")
    }

    /// Free device memory in bytes, for sizing large checks.
    pub fn free_memory(&self) -> Result<usize> {
        let (free, _total) = self.ctx.mem_get_info().context("cuMemGetInfo failed")?;
        Ok(free)
    }

    /// Starts a launch of `function`; push its arguments with `.arg(..)`
    /// and hand the builder to [`Gpu::launch`] or [`Gpu::enqueue`].
    pub fn args<'a>(&'a self, function: &'a Kernel) -> Args<'a> {
        self.stream.launch_builder(function)
    }

    /// Launches with the book's launch configuration, waits for the kernel
    /// to finish and checks both the launch and the execution for errors.
    /// Returns the kernel's time in milliseconds, from device events.
    pub fn launch(&self, args: Args<'_>, cfg: &LaunchConfig, shared_bytes: u32) -> Result<f32> {
        self.timed(|| self.enqueue(args, cfg, shared_bytes))
    }

    /// Queues a launch without waiting for it; the launch itself is
    /// checked. Follow a series of these with [`Gpu::synchronize`], or wrap
    /// them in [`Gpu::timed`].
    pub fn enqueue(&self, mut args: Args<'_>, cfg: &LaunchConfig, shared_bytes: u32) -> Result<()> {
        let launch = cudarc::driver::LaunchConfig {
            grid_dim: (cfg.grid.x, cfg.grid.y, 1),
            block_dim: (cfg.block.x, cfg.block.y, 1),
            shared_mem_bytes: shared_bytes,
        };
        // SAFETY: each chapter pushes the arguments its kernel declares, in
        // order and with matching types; buffers outlive the synchronisation
        // that follows every series of launches.
        unsafe { args.launch(launch) }.context("kernel launch failed")?;
        Ok(())
    }

    /// Waits for everything queued and reports any error it raised.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().context("kernel execution failed")
    }

    /// Runs `work` (which queues device work) between two events, waits,
    /// and returns the time between them in milliseconds.
    pub fn timed(&self, work: impl FnOnce() -> Result<()>) -> Result<f32> {
        let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(timing).context("recording an event failed")?;
        work()?;
        let end = self.stream.record_event(timing).context("recording an event failed")?;
        self.synchronize()?;
        start.elapsed_ms(&end).context("reading the events failed")
    }

    /// Time in milliseconds of one device-to-device copy of `src` into `dst`.
    pub fn copy_ms<T: DeviceRepr>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<f32> {
        self.timed(|| self.stream.memcpy_dtod(src, dst).context("device-to-device copy failed"))
    }

    /// The device's multiprocessor count (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
    pub fn multiprocessors(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count")
    }

    /// The device's peak SM clock in kHz (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`).
    pub fn clock_khz(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clock rate")
    }

    /// A computed FP32 peak in TFLOP/s: multiprocessors x peak clock x 128
    /// FP32 lanes per multiprocessor (compute capability 8.6 and later, and
    /// 9.0; an A100, 8.0, has 64) x 2 flops per fused multiply-add. A
    /// number from the data sheet's formula, not a measurement.
    pub fn fp32_peak_tflops(&self) -> Result<f64> {
        let lanes = if self.info.compute_capability == (8, 0) { 64.0 } else { 128.0 };
        Ok(self.multiprocessors()? as f64 * self.clock_khz()? as f64 * 1e3 * lanes * 2.0 / 1e12)
    }

    fn attribute(&self, attribute: sys::CUdevice_attribute, what: &str) -> Result<u32> {
        let v = self.ctx.attribute(attribute).with_context(|| format!("reading the device's {what} failed"))?;
        u32::try_from(v).map_err(|_| anyhow!("the device reported a {what} of {v}"))
    }

    /// The stream, for the libraries (cuBLAS) that launch on it.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}
// ANCHOR_END: runner

fn check(status: sys::CUresult, what: &str) -> Result<()> {
    if status == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(anyhow!("{what} failed ({status:?})"))
    }
}
