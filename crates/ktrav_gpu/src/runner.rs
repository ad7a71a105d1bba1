//! The runner: an open device with one stream, the kernels loaded once per
//! file, buffers that start poisoned, and launches whose every error is
//! checked. Chapters reach the GPU only through this type.
//!
//! Kernels take one of two paths, chosen when the device is opened and
//! reported by [`Gpu::kernel_path`]:
//!
//! * **embedded**: the fatbin nvcc built (sm_80 and sm_90 machine code,
//!   compute_80 PTX) serves every device of compute capability 8.0 and up;
//! * **NVRTC**: below 8.0 (a T4 is 7.5) the fatbin has nothing the device
//!   can run, so the file's embedded `.cu` source is compiled at run time
//!   for the device's own architecture (see [`crate::nvrtc`]) and that machine code
//!   is loaded instead. Setting [`FORCE_NVRTC_ENV`] takes this path on any
//!   device, to test it on a new one. A fatbin the driver refuses with
//!   `CUDA_ERROR_NO_BINARY_FOR_GPU` also falls back to it.

use crate::kernels;
use crate::nvrtc::{self, Arch};
use crate::probe::{probe, DeviceInfo, Probe, Unavailable};
use anyhow::{anyhow, bail, Context, Result};
use cudarc::driver::{sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr};
use cudarc::driver::{LaunchArgs, ValidAsZeroBits};
use cudarc::nvrtc::Ptx;
use ktrav::compare::POISON_WORD;
use ktrav::LaunchConfig;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    path: KernelPath,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

/// Set this variable (to anything) to compile the chapters' kernels with
/// NVRTC at run time even where the embedded fatbin would serve.
pub const FORCE_NVRTC_ENV: &str = "KTRAV_NVRTC";

/// How the chapters' kernels reach the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelPath {
    /// From the embedded fatbin: `code` is what the driver picks, such as
    /// `sm_90 machine code` or `compute_80 PTX, compiled for this GPU by the
    /// driver`.
    Embedded { code: String },
    /// Compiled at run time by NVRTC, because of `reason`.
    RunTime { reason: String },
}

impl KernelPath {
    /// The path a device of this compute capability takes.
    pub fn for_device(compute_capability: (i32, i32), forced: bool) -> Self {
        let (major, minor) = compute_capability;
        if forced {
            KernelPath::RunTime { reason: format!("{FORCE_NVRTC_ENV} is set") }
        } else if major < 8 {
            KernelPath::RunTime {
                reason: format!("compute capability {major}.{minor} is below the embedded code's 8.0"),
            }
        } else {
            let code = match major {
                8 => "sm_80 machine code".to_string(),
                9 => "sm_90 machine code".to_string(),
                _ => "compute_80 PTX, compiled for this GPU by the driver".to_string(),
            };
            KernelPath::Embedded { code }
        }
    }

    /// `kernels: embedded sm_90 machine code` or `kernels: compiled at run
    /// time by NVRTC 13.0 (path), because ...`.
    pub fn describe(&self) -> String {
        match self {
            KernelPath::Embedded { code } => format!("kernels: embedded {code}"),
            KernelPath::RunTime { reason } => {
                let by = match nvrtc::locate() {
                    Ok(n) => n.describe(),
                    Err(_) => "NVRTC, which is missing".to_string(),
                };
                format!("kernels: compiled at run time by {by}, because {reason}")
            }
        }
    }
}

/// Opens device 0, or says in one line why not.
pub fn open() -> std::result::Result<Gpu, Unavailable> {
    match probe() {
        Probe::Available { ctx, info } => {
            let stream = ctx.default_stream();
            let path = KernelPath::for_device(info.compute_capability, std::env::var_os(FORCE_NVRTC_ENV).is_some());
            Ok(Gpu { ctx, stream, info, path, modules: Mutex::new(HashMap::new()) })
        }
        Probe::Unavailable { reason } => Err(Unavailable(reason)),
    }
}

/// FP32 fused multiply-adds a multiprocessor completes per clock, by compute
/// capability (the CUDA programming guide's table of arithmetic
/// throughput): 64 on 7.5 and 8.0 (T4, A100), 128 from 8.6 on (RTX 30xx
/// and later, H100/H200). Older cards (V100 is 7.0), some of which have
/// 128, are past what CUDA 13 compiles for.
pub fn fp32_lanes_per_sm(compute_capability: (i32, i32)) -> u32 {
    if compute_capability <= (8, 0) {
        64
    } else {
        128
    }
}

impl Gpu {
    /// The kernel `function` of `kernels/<file>.cu`, loaded on first use
    /// and kept: from the embedded fatbin (the driver picks the sm_80 or
    /// sm_90 machine code, or compiles the compute_80 PTX for a newer GPU),
    /// or compiled by NVRTC for this device (see [`Gpu::kernel_path`]).
    pub fn function(&self, file: &str, function: &str) -> Result<Kernel> {
        let module = self.module(file)?;
        module.load_function(function).with_context(|| format!("kernels/{file}.cu has no kernel {function}"))
    }

    /// How this device gets the chapters' kernels.
    pub fn kernel_path(&self) -> &KernelPath {
        &self.path
    }

    fn module(&self, file: &str) -> Result<Arc<CudaModule>> {
        let kernel = kernels::find(file).ok_or_else(|| anyhow!("there is no kernels/{file}.cu"))?;
        if let Some(m) = self.modules.lock().expect("module cache").get(kernel.name) {
            return Ok(m.clone());
        }
        let module = match (&self.path, kernel.fatbin) {
            (KernelPath::Embedded { .. }, Some(fatbin)) => {
                match self.ctx.load_module(Ptx::from_binary(fatbin.to_vec())) {
                    Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU => self.compile_embedded(kernel),
                    loaded => loaded.with_context(|| format!("loading kernels/{file}.cu failed")),
                }
            }
            (KernelPath::Embedded { .. }, None) => Err(anyhow!(
                "kernels not embedded: this binary was built without nvcc (run scripts/install-nvcc, then rebuild)"
            )),
            (KernelPath::RunTime { .. }, _) => self.compile_embedded(kernel),
        }?;
        self.modules.lock().expect("module cache").insert(kernel.name, module.clone());
        Ok(module)
    }

    /// The NVRTC path: the file's embedded source, compiled for this device.
    fn compile_embedded(&self, kernel: &kernels::EmbeddedKernel) -> Result<Arc<CudaModule>> {
        let name = format!("kernels/{}.cu", kernel.name);
        let compiled = self.compile(kernel.source, &name).map_err(|e| anyhow!("{name}: {e}"))?;
        self.load_compiled(&compiled).with_context(|| format!("loading {name} as compiled by NVRTC failed"))
    }

    /// Compiles CUDA source with NVRTC for this device: machine code for
    /// its own architecture, or PTX for the newest one NVRTC knows below
    /// it (see [`nvrtc::Nvrtc::compile_for`]). `Err` is one line, or the
    /// compiler's log for a rejected source.
    pub fn compile(&self, source: &str, name: &str) -> std::result::Result<nvrtc::Compiled, nvrtc::CompileFailure> {
        let nvrtc = nvrtc::locate().map_err(|why| nvrtc::CompileFailure::Failed(why.0))?;
        nvrtc.compile_for(source, name, Arch::of(self.info.compute_capability))
    }

    /// Loads PTX (from [`Gpu::compile`]) as a module of its own.
    pub fn load_ptx(&self, ptx: &str) -> Result<Arc<CudaModule>> {
        Ok(self.ctx.load_module(Ptx::from_src(ptx))?)
    }

    /// Loads what [`Gpu::compile`] produced: its machine code where it has
    /// some, else its PTX.
    pub fn load_compiled(&self, compiled: &nvrtc::Compiled) -> Result<Arc<CudaModule>> {
        match &compiled.cubin {
            Some(cubin) => self.load_cubin(cubin),
            None => self.load_ptx(&compiled.ptx),
        }
    }

    /// Loads machine code (a cubin) for this device.
    pub fn load_cubin(&self, cubin: &[u8]) -> Result<Arc<CudaModule>> {
        Ok(self.ctx.load_module(Ptx::from_binary(cubin.to_vec()))?)
    }

    /// The context, for reading device attributes beside a kernel's.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Copies a host slice to a new device buffer.
    ///
    /// An allocation or copy that failed for want of device memory says so
    /// through [`out_of_memory`].
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

    /// Sets every element of `buf` to zero again.
    pub fn zero<T: DeviceRepr + ValidAsZeroBits>(&self, buf: &mut DeviceBuffer<T>) -> Result<()> {
        self.stream.memset_zeros(buf).context("zeroing a device buffer failed")
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

    /// Records an event, runs `work` (which queues device work), records a
    /// second event and returns both without waiting: the caller waits as it
    /// likes (a watchdog polling [`Gpu::finish_within`], say), outside the
    /// timed span, then reads [`Span::ms`].
    pub fn span(&self, work: impl FnOnce() -> Result<()>) -> Result<Span> {
        let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(timing).context("recording an event failed")?;
        work()?;
        let end = self.stream.record_event(timing).context("recording an event failed")?;
        Ok(Span { start, end })
    }

    /// Queues a device-to-device copy of `src` into `dst`, without waiting.
    pub fn enqueue_copy<T: DeviceRepr>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        self.stream.memcpy_dtod(src, dst).context("device-to-device copy failed")
    }

    /// Time in milliseconds of one device-to-device copy of `src` into `dst`.
    pub fn copy_ms<T: DeviceRepr>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<f32> {
        self.timed(|| self.stream.memcpy_dtod(src, dst).context("device-to-device copy failed"))
    }

    /// Waits for everything queued, but at most `timeout`: polls an event
    /// instead of blocking, so a kernel that never finishes is reported
    /// rather than hanging the caller. `Ok(false)` means it did not finish;
    /// the context is then unusable and the process should report and exit
    /// (dropping device buffers would wait for the kernel).
    pub fn finish_within(&self, timeout: Duration) -> Result<bool> {
        let event = self
            .ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .context("creating an event failed")?;
        event.record(&self.stream).context("recording an event failed")?;
        let started = Instant::now();
        loop {
            // SAFETY: the event is live and recorded on this context's stream.
            match unsafe { sys::cuEventQuery(event.cu_event()) } {
                sys::CUresult::CUDA_SUCCESS => return Ok(true),
                sys::CUresult::CUDA_ERROR_NOT_READY if started.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_micros(200));
                }
                sys::CUresult::CUDA_ERROR_NOT_READY => return Ok(false),
                status => return Err(anyhow!("kernel execution failed ({status:?})")),
            }
        }
    }

    /// The device address of `buf`'s first element, for kernels handed a
    /// pointer into the middle of a buffer (as a lab check does, to keep
    /// guard words on both sides of the output). Synchronise before reading
    /// the buffer back: launches through raw addresses are not tracked.
    pub fn address<T>(&self, buf: &DeviceBuffer<T>) -> u64 {
        use cudarc::driver::DevicePtr;
        let (ptr, _sync) = buf.device_ptr(&self.stream);
        ptr
    }

    /// The device's multiprocessor count (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
    pub fn multiprocessors(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count")
    }

    /// The device's peak SM clock in kHz (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`).
    pub fn clock_khz(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clock rate")
    }

    /// A computed FP32 peak in TFLOP/s: multiprocessors x peak clock x
    /// [`fp32_lanes_per_sm`] x 2 flops per fused multiply-add. A number
    /// from the data sheet's formula, not a measurement.
    pub fn fp32_peak_tflops(&self) -> Result<f64> {
        let lanes = fp32_lanes_per_sm(self.info.compute_capability) as f64;
        Ok(self.multiprocessors()? as f64 * self.clock_khz()? as f64 * 1e3 * lanes * 2.0 / 1e12)
    }

    /// The L2 cache's size in bytes (`CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`).
    pub fn l2_bytes(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 cache size")
    }

    /// The device memory's peak clock in kHz
    /// (`CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE`).
    pub fn memory_clock_khz(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "memory clock rate")
    }

    /// The device memory's bus width in bits
    /// (`CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH`).
    pub fn memory_bus_bits(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "memory bus width")
    }

    /// The device's PCI address, `domain:bus:device` in hex (`0000:19:00`):
    /// the same card whatever `CUDA_VISIBLE_DEVICES` numbers it.
    pub fn pci_address(&self) -> Result<String> {
        use sys::CUdevice_attribute as A;
        let domain = self.attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, "PCI domain")?;
        let bus = self.attribute(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "PCI bus")?;
        let device = self.attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, "PCI device")?;
        Ok(format!("{domain:04x}:{bus:02x}:{device:02x}"))
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

/// Two recorded events around queued work (from [`Gpu::span`]).
pub struct Span {
    start: cudarc::driver::CudaEvent,
    end: cudarc::driver::CudaEvent,
}

impl Span {
    /// Milliseconds between the events; the work must have finished.
    pub fn ms(&self) -> Result<f32> {
        self.start.elapsed_ms(&self.end).context("reading the events failed")
    }
}

fn check(status: sys::CUresult, what: &str) -> Result<()> {
    if status == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(anyhow!("{what} failed ({status:?})"))
    }
}

/// Whether `e` (from an allocation or a copy) is the driver's
/// `CUDA_ERROR_OUT_OF_MEMORY`.
pub fn out_of_memory(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<cudarc::driver::DriverError>().is_some_and(|d| d.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp32_lanes_follow_the_capability_table() {
        let lanes: Vec<u32> =
            [(7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (12, 0)].into_iter().map(fp32_lanes_per_sm).collect();
        assert_eq!(lanes, [64, 64, 128, 128, 128, 128]);
    }
    use ktrav::compare::{compare, Agreement};
    use ktrav::{Dim2, Shape};

    #[test]
    fn out_of_memory_is_told_apart_through_context() {
        let oom = |code| anyhow::Error::new(cudarc::driver::DriverError(code)).context("copy to device failed");
        assert!(out_of_memory(&oom(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY)));
        assert!(!out_of_memory(&oom(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS)));
        assert!(!out_of_memory(&anyhow!("out of memory, in words only")));
    }

    /// Runs on a real GPU when there is one; says it was skipped otherwise.
    #[test]
    fn runner_launches_poisons_and_compares() {
        let gpu = match open() {
            Ok(gpu) => gpu,
            Err(reason) => {
                eprintln!("skipped: no GPU ({reason})");
                return;
            }
        };
        let (rows, cols) = (37u64, 61u64);
        let expect: Vec<i32> = (0..rows).flat_map(|r| (0..cols).map(move |c| (r * 1000 + c) as i32)).collect();
        let f = gpu.function("ktrav_selftest", "fill_coords").unwrap();
        let run = |cfg: LaunchConfig| -> Agreement {
            let mut out = gpu.poisoned::<i32>((rows * cols) as usize).unwrap();
            let (r, c) = (rows as i64, cols as i64);
            let mut args = gpu.args(&f);
            args.arg(&mut out).arg(&r).arg(&c);
            gpu.launch(args, &cfg, 0).unwrap();
            compare(&gpu.download(&out).unwrap(), &expect)
        };
        let full = LaunchConfig::covering(Shape::new(rows, cols), Dim2::new(16, 16)).unwrap();
        assert!(run(full).ok());
        // One block column short: the last 61 - 48 = 13 columns stay poisoned.
        let short = LaunchConfig { grid: Dim2::new(full.grid.x - 1, full.grid.y), ..full };
        let a = run(short);
        assert_eq!((a.unwritten, a.mismatched, a.first_bad), ((13 * rows) as usize, 0, Some(48)));
        eprintln!("ran on {}", gpu.info.describe());
    }

    #[test]
    fn old_gpus_and_the_variable_take_the_nvrtc_path() {
        let embedded = |code: &str| KernelPath::Embedded { code: code.to_string() };
        assert_eq!(KernelPath::for_device((9, 0), false), embedded("sm_90 machine code"));
        assert_eq!(KernelPath::for_device((8, 6), false), embedded("sm_80 machine code"));
        assert!(
            matches!(KernelPath::for_device((12, 0), false), KernelPath::Embedded { code } if code.contains("compute_80 PTX"))
        );
        for old in [(7, 5), (7, 0)] {
            let KernelPath::RunTime { reason } = KernelPath::for_device(old, false) else {
                panic!("{old:?} took the embedded path")
            };
            assert!(reason.contains("below the embedded code's 8.0"), "{reason}");
        }
        let forced = KernelPath::for_device((9, 0), true);
        assert_eq!(forced, KernelPath::RunTime { reason: format!("{FORCE_NVRTC_ENV} is set") });
        assert!(forced.describe().starts_with("kernels: compiled at run time by "));
        assert_eq!(embedded("sm_90 machine code").describe(), "kernels: embedded sm_90 machine code");
    }
}
