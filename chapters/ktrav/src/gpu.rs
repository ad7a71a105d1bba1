//! Is there a GPU to launch on? A probe that never panics.
//!
//! cudarc loads `libcuda` lazily and panics if it is missing, so the probe
//! asks [`cudarc::driver::sys::is_culib_present`] first and also catches any
//! panic from the driver bindings. Every failure becomes one line of text
//! that a chapter prints before carrying on with its simulated results.

use crate::geometry::LaunchConfig;
use crate::kernels;
use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr, LaunchArgs};
use cudarc::nvrtc::Ptx;

/// Chapters push kernel arguments with `.arg(..)`, which this trait provides.
pub use cudarc::driver::PushKernelArg;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Set this variable (to anything) to make every chapter behave as if no
/// GPU were present, for example to compare outputs on a GPU machine.
pub const DISABLE_ENV: &str = "KTRAV_NO_GPU";

/// What the book reports about the device it ran on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    pub compute_capability: (i32, i32),
    /// The driver's CUDA version as `cuDriverGetVersion` reports it (13000 = 13.0).
    pub driver_version: i32,
}

impl DeviceInfo {
    /// `NVIDIA H200, compute capability 9.0, driver CUDA 13.0`.
    pub fn describe(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!(
            "{}, compute capability {major}.{minor}, driver CUDA {}.{}",
            self.name,
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10
        )
    }
}

/// The outcome of looking for a GPU.
#[derive(Clone)]
pub enum Probe {
    Available { ctx: Arc<CudaContext>, info: DeviceInfo },
    Unavailable { reason: String },
}

impl Probe {
    /// The one line a chapter prints when it cannot use a GPU, or `None`.
    pub fn skip_line(&self) -> Option<String> {
        match self {
            Probe::Available { .. } => None,
            Probe::Unavailable { reason } => Some(format!("GPU section skipped: {reason}.")),
        }
    }
}

/// Looks for device 0. Never panics.
pub fn probe() -> Probe {
    probe_unless(std::env::var_os(DISABLE_ENV).is_some())
}

fn probe_unless(disabled: bool) -> Probe {
    if disabled {
        return Probe::Unavailable { reason: format!("{DISABLE_ENV} is set") };
    }
    // SAFETY: only tries to dlopen the driver library by its usual names.
    if !unsafe { sys::is_culib_present() } {
        return Probe::Unavailable { reason: "no CUDA driver (libcuda) on this machine".into() };
    }
    match catch_unwind(AssertUnwindSafe(open_device)) {
        Ok(Ok(probe)) => probe,
        Ok(Err(reason)) => Probe::Unavailable { reason },
        Err(_) => Probe::Unavailable { reason: "the CUDA driver could not be loaded".into() },
    }
}

fn open_device() -> Result<Probe, String> {
    let count = CudaContext::device_count().map_err(|e| format!("the CUDA driver did not start ({e})"))?;
    if count < 1 {
        return Err("the CUDA driver reports no device".into());
    }
    let ctx = CudaContext::new(0).map_err(|e| format!("device 0 could not be opened ({e})"))?;
    let name = ctx.name().map_err(|e| e.to_string())?;
    let compute_capability = ctx.compute_capability().map_err(|e| e.to_string())?;
    let mut driver_version = 0;
    // SAFETY: cuDriverGetVersion writes one int; the driver is loaded.
    let status = unsafe { sys::cuDriverGetVersion(&mut driver_version) };
    if status != sys::CUresult::CUDA_SUCCESS {
        return Err(format!("cuDriverGetVersion failed ({status:?})"));
    }
    Ok(Probe::Available { ctx, info: DeviceInfo { name, compute_capability, driver_version } })
}

// ANCHOR: runner
/// An open device with one stream: what every chapter's GPU section uses
/// to load the embedded kernels, move data and launch.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: DeviceInfo,
}

/// A 32-bit pattern written over every output buffer before a launch. As an
/// `f32` it is a NaN, as an `i32` it is 2143346349: an element still holding
/// it after the launch is one the kernel never wrote.
pub const POISON_WORD: u32 = 0x7FC0_DEAD;

/// Opens device 0, or says in one line why not.
pub fn open() -> Result<Gpu, String> {
    match probe() {
        Probe::Available { ctx, info } => {
            let stream = ctx.default_stream();
            Ok(Gpu { ctx, stream, info })
        }
        Probe::Unavailable { reason } => Err(reason),
    }
}

impl Gpu {
    /// Loads `kernels/<file>.cu`'s embedded fatbin and returns its kernel
    /// `function`. The driver picks the sm_80 or sm_90 machine code, or JIT
    /// compiles the compute_80 PTX for a newer architecture (8.6, 8.9, 10.x,
    /// 12.x). Below compute capability 8.0 nothing in the fatbin can run.
    pub fn function(&self, file: &str, function: &str) -> Result<CudaFunction, String> {
        let kernel = kernels::find(file).ok_or_else(|| format!("there is no kernels/{file}.cu"))?;
        let fatbin = kernel.fatbin.ok_or_else(|| {
            "kernels not embedded: this binary was built without nvcc (run scripts/install-nvcc, then rebuild)"
                .to_string()
        })?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(fatbin.to_vec()))
            .map_err(|e| format!("loading kernels/{file}.cu failed ({e})"))?;
        module.load_function(function).map_err(|e| format!("kernels/{file}.cu has no kernel {function} ({e})"))
    }

    /// Copies a host slice to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>, String> {
        self.stream.clone_htod(host).map_err(|e| format!("copy to device failed ({e})"))
    }

    /// A new device buffer of `len` elements, every 32-bit word set to
    /// [`POISON_WORD`].
    pub fn poisoned<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>, String> {
        // SAFETY: the buffer is filled by `poison` before anyone reads it.
        let mut buf = unsafe { self.stream.alloc::<T>(len) }.map_err(|e| format!("device allocation of {len} elements failed ({e})"))?;
        self.poison(&mut buf)?;
        Ok(buf)
    }

    /// Overwrites every 32-bit word of `buf` with [`POISON_WORD`].
    pub fn poison<T: DeviceRepr>(&self, buf: &mut CudaSlice<T>) -> Result<(), String> {
        assert!(std::mem::size_of::<T>().is_multiple_of(4), "poisoning needs elements made of 32-bit words");
        let words = buf.len() * std::mem::size_of::<T>() / 4;
        let (ptr, _sync) = buf.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` addresses `words` 32-bit words owned by `buf`.
        let status = unsafe { sys::cuMemsetD32Async(ptr, POISON_WORD, words, self.stream.cu_stream()) };
        check(status, "poisoning the output buffer")
    }

    /// Copies a device buffer back to the host (waits for the stream).
    pub fn download<T: DeviceRepr>(&self, dev: &CudaSlice<T>) -> Result<Vec<T>, String> {
        self.stream.clone_dtoh(dev).map_err(|e| format!("copy from device failed ({e})"))
    }

    /// Starts a launch of `function`; push its arguments with `.arg(..)`
    /// and hand the builder to [`Gpu::launch`].
    pub fn args<'a>(&'a self, function: &'a CudaFunction) -> LaunchArgs<'a> {
        self.stream.launch_builder(function)
    }

    /// Launches with the book's launch configuration, waits for the kernel
    /// to finish and checks both the launch and the execution for errors.
    /// Returns the kernel's time in milliseconds, from device events.
    pub fn launch(&self, mut args: LaunchArgs<'_>, cfg: &LaunchConfig, shared_bytes: u32) -> Result<f32, String> {
        let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(timing).map_err(|e| format!("event failed ({e})"))?;
        let launch = cudarc::driver::LaunchConfig {
            grid_dim: (cfg.grid.x, cfg.grid.y, 1),
            block_dim: (cfg.block.x, cfg.block.y, 1),
            shared_mem_bytes: shared_bytes,
        };
        // SAFETY: each chapter pushes the arguments its kernel declares, in
        // order and with matching types; buffers outlive the synchronisation
        // below.
        unsafe { args.launch(launch) }.map_err(|e| format!("kernel launch failed ({e})"))?;
        let end = self.stream.record_event(timing).map_err(|e| format!("event failed ({e})"))?;
        self.stream.synchronize().map_err(|e| format!("kernel execution failed ({e})"))?;
        start.elapsed_ms(&end).map_err(|e| format!("timing failed ({e})"))
    }

    /// Median time in milliseconds of a device-to-device copy of `bytes`
    /// bytes: the bandwidth yardstick chapters print their kernels against.
    pub fn copy_ms(&self, bytes: usize, repeats: usize) -> Result<f32, String> {
        let src = self.poisoned::<u32>(bytes / 4)?;
        let mut dst = self.poisoned::<u32>(bytes / 4)?;
        median_ms(repeats, || {
            let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
            let start = self.stream.record_event(timing).map_err(|e| e.to_string())?;
            self.stream.memcpy_dtod(&src, &mut dst).map_err(|e| format!("copy failed ({e})"))?;
            let end = self.stream.record_event(timing).map_err(|e| e.to_string())?;
            start.elapsed_ms(&end).map_err(|e| e.to_string())
        })
    }
}
// ANCHOR_END: runner

fn check(status: sys::CUresult, what: &str) -> Result<(), String> {
    if status == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed ({status:?})"))
    }
}

/// How a GPU result compares with its simulator, element by element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    pub elements: usize,
    /// Elements still holding the poison pattern: never written.
    pub unwritten: usize,
    /// Written elements that differ from the reference.
    pub mismatched: usize,
    /// The first index that is unwritten or wrong.
    pub first_bad: Option<usize>,
}

impl Agreement {
    pub fn ok(&self) -> bool {
        self.unwritten == 0 && self.mismatched == 0
    }

    /// `16777216 elements: all match` or the counts of what went wrong.
    pub fn describe(&self) -> String {
        if self.ok() {
            format!("{} elements, all match", self.elements)
        } else {
            format!(
                "{} elements: {} unwritten, {} wrong (first at index {})",
                self.elements,
                self.unwritten,
                self.mismatched,
                self.first_bad.unwrap_or(0)
            )
        }
    }
}

/// Compares a downloaded GPU buffer with the reference, telling poisoned
/// (unwritten) elements apart from wrong ones. Elements are compared by bit
/// pattern, so the comparison is exact.
pub fn compare<T: Copy + Send + Sync>(gpu: &[T], reference: &[T]) -> Agreement {
    assert_eq!(gpu.len(), reference.len(), "GPU and reference lengths differ");
    compare_with(gpu, |i| reference[i])
}

/// Like [`compare`], but the reference is a function of the index, so a
/// matrix of billions of elements needs no second host buffer. The check is
/// spread over every CPU core.
pub fn compare_with<T: Copy + Send + Sync>(gpu: &[T], expected: impl Fn(usize) -> T + Sync) -> Agreement {
    let n_words = std::mem::size_of::<T>() / 4;
    assert!(
        std::mem::size_of::<T>().is_multiple_of(4) && std::mem::align_of::<T>() >= 4,
        "comparison needs elements made of aligned 32-bit words"
    );
    fn words<T>(x: &T, n: usize) -> &[u32] {
        // SAFETY: `T` is `n` aligned 32-bit words (checked above), and
        // every bit pattern is a valid u32.
        unsafe { std::slice::from_raw_parts(x as *const T as *const u32, n) }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(64);
    let chunk = gpu.len().div_ceil(threads).max(1 << 16);
    let parts: Vec<Agreement> = std::thread::scope(|scope| {
        let handles: Vec<_> = gpu
            .chunks(chunk)
            .enumerate()
            .map(|(k, part)| {
                let expected = &expected;
                scope.spawn(move || {
                    let mut a = Agreement { elements: part.len(), unwritten: 0, mismatched: 0, first_bad: None };
                    for (j, g) in part.iter().enumerate() {
                        let i = k * chunk + j;
                        let want = expected(i);
                        let (gw, rw) = (words(g, n_words), words(&want, n_words));
                        if gw == rw {
                            continue;
                        }
                        if gw.iter().all(|&w| w == POISON_WORD) {
                            a.unwritten += 1;
                        } else {
                            a.mismatched += 1;
                        }
                        a.first_bad.get_or_insert(i);
                    }
                    a
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("comparison thread panicked")).collect()
    });
    parts.into_iter().fold(
        Agreement { elements: 0, unwritten: 0, mismatched: 0, first_bad: None },
        |mut acc, p| {
            acc.elements += p.elements;
            acc.unwritten += p.unwritten;
            acc.mismatched += p.mismatched;
            acc.first_bad = acc.first_bad.or(p.first_bad);
            acc
        },
    )
}

/// A value for element `i` of a test input: 24 well-mixed bits, exact as
/// an `f32`, so a misplaced element is caught even in a matrix of billions.
pub fn test_value(i: u64) -> f32 {
    (i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f32
}

/// Effective bandwidth in GB/s of moving `bytes` in `ms` milliseconds.
pub fn gbps(bytes: u64, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e9
}

// ANCHOR: section
/// The "on this GPU" section a chapter prints after its worked example:
/// one line per cross-check, each ending in a coloured verdict.
pub struct GpuSection {
    report: crate::report::Report,
    failures: usize,
}

impl GpuSection {
    fn new(gpu: &Gpu) -> Self {
        let mut report = crate::report::Report::new();
        report.heading(&format!("On this GPU: {}", gpu.info.describe()));
        GpuSection { report, failures: 0 }
    }

    /// Records one cross-check; `ms` is the kernel time, printed for
    /// interest only (it is never part of asserted output).
    pub fn check(&mut self, label: &str, agreement: &Agreement, ms: Option<f32>) {
        self.verdict(label, &agreement.describe(), agreement.ok(), ms);
    }

    /// Records a check of any kind: `label: detail ... verdict`.
    pub fn verdict(&mut self, label: &str, detail: &str, ok: bool, ms: Option<f32>) {
        if !ok {
            self.failures += 1;
        }
        let time = ms.map(|ms| format!(" [{ms:.3} ms]")).unwrap_or_default();
        self.report.line(format!("  {label}: {detail}{time}: {}", crate::report::flag(ok, if ok { "agrees" } else { "DISAGREES" })));
    }

    /// A line of commentary.
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.report.line(text);
    }

    pub fn failures(&self) -> usize {
        self.failures
    }

    /// Starts a bandwidth table: times a device-to-device copy of
    /// `copy_bytes` bytes and prints it as the yardstick. Rows added with
    /// [`Bandwidth::row`] are timed in the same run, so their ratio to the
    /// copy is meaningful even though the times themselves vary.
    pub fn bandwidth(&mut self, gpu: &Gpu, title: &str, copy_bytes: usize, repeats: usize) -> Result<Bandwidth, String> {
        let copy_ms = gpu.copy_ms(copy_bytes, repeats)?;
        self.line(format!("bandwidth on {title}, median of {repeats} (timings vary run to run; never asserted):"));
        self.line(format!("  device-to-device copy: {copy_ms:.3} ms, {:.0} GB/s", gbps(2 * copy_bytes as u64, copy_ms)));
        Ok(Bandwidth { copy_ms, repeats })
    }
}

/// A bandwidth table in progress (see [`GpuSection::bandwidth`]).
pub struct Bandwidth {
    copy_ms: f32,
    repeats: usize,
}

impl Bandwidth {
    /// Runs `launch` (which returns one launch's time in ms) as many times
    /// as the copy was timed and prints the median, the effective bandwidth
    /// for `bytes` moved per launch, and the ratio to the copy's time.
    pub fn row(
        &self,
        sec: &mut GpuSection,
        label: &str,
        bytes: u64,
        launch: impl FnMut() -> Result<f32, String>,
    ) -> Result<f32, String> {
        let ms = median_ms(self.repeats, launch)?;
        sec.line(format!("  {label}: {ms:.3} ms, {:.0} GB/s, {:.2}x the copy's time", gbps(bytes, ms), ms / self.copy_ms));
        Ok(ms)
    }
}

/// The median of `repeats` timings from `launch`.
pub fn median_ms(repeats: usize, mut launch: impl FnMut() -> Result<f32, String>) -> Result<f32, String> {
    let mut times = (0..repeats.max(1)).map(|_| launch()).collect::<Result<Vec<f32>, String>>()?;
    times.sort_by(f32::total_cmp);
    Ok(times[times.len() / 2])
}

/// What became of a chapter's GPU section.
pub enum SectionOutcome {
    /// No usable GPU, and why.
    Skipped(String),
    /// The checks ran; `failures` of them disagreed.
    Ran { text: String, failures: usize },
    /// A CUDA call failed part-way (the text so far, then the error).
    Failed(String),
}

impl SectionOutcome {
    pub fn text(&self) -> String {
        match self {
            SectionOutcome::Skipped(reason) => format!("GPU section skipped: {reason}.\n"),
            SectionOutcome::Ran { text, .. } | SectionOutcome::Failed(text) => text.clone(),
        }
    }

    /// 0 when skipped or all checks agreed, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            SectionOutcome::Skipped(_) | SectionOutcome::Ran { failures: 0, .. } => 0,
            _ => 1,
        }
    }
}

/// Opens the GPU and runs a chapter's cross-checks on it, or explains in
/// one line why the section was skipped.
pub fn section(checks: impl FnOnce(&Gpu, &mut GpuSection) -> Result<(), String>) -> SectionOutcome {
    let gpu = match open() {
        Ok(gpu) => gpu,
        Err(reason) => return SectionOutcome::Skipped(reason),
    };
    let mut sec = GpuSection::new(&gpu);
    match checks(&gpu, &mut sec) {
        Ok(()) => SectionOutcome::Ran { text: sec.report.into_string(), failures: sec.failures },
        Err(e) => {
            sec.line(format!("  {}: {e}", crate::report::flag(false, "CUDA error")));
            SectionOutcome::Failed(sec.report.into_string())
        }
    }
}

/// For a chapter's `main`: prints the section and exits non-zero if a
/// check disagreed or CUDA failed.
pub fn print_section(checks: impl FnOnce(&Gpu, &mut GpuSection) -> Result<(), String>) {
    let outcome = section(checks);
    anstream::println!();
    anstream::print!("{}", outcome.text());
    if outcome.exit_code() != 0 {
        std::process::exit(outcome.exit_code());
    }
}

// ANCHOR_END: section

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_never_panics_and_explains_itself() {
        match probe() {
            Probe::Available { info, .. } => assert!(info.describe().contains("compute capability")),
            p @ Probe::Unavailable { .. } => {
                let line = p.skip_line().unwrap();
                assert!(line.starts_with("GPU section skipped: ") && !line.contains('\n'));
            }
        }
    }

    #[test]
    fn comparison_tells_unwritten_from_wrong() {
        let poison = f32::from_bits(POISON_WORD);
        let a = compare(&[1.0f32, poison, 3.5, 4.0], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(a, Agreement { elements: 4, unwritten: 1, mismatched: 1, first_bad: Some(1) });
        assert!(!a.ok());
        assert!(compare(&[7i32, 8], &[7, 8]).ok());
        // Exact: NaN compares equal to the same NaN, and 0.0 differs from -0.0.
        assert!(compare(&[f32::NAN], &[f32::NAN]).ok());
        assert!(!compare(&[0.0f32], &[-0.0]).ok());
        // The parallel check finds the first bad index across chunks.
        let mut big = vec![1u32; 300_000];
        big[250_000] = POISON_WORD;
        big[299_999] = 7;
        let a = compare_with(&big, |_| 1u32);
        assert_eq!(a, Agreement { elements: 300_000, unwritten: 1, mismatched: 1, first_bad: Some(250_000) });
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
        let full = LaunchConfig::for_matrix(rows, cols, crate::Dim2::new(16, 16)).unwrap();
        assert!(run(full).ok());
        // One block column short: the last 61 - 48 = 13 columns stay poisoned.
        let short = LaunchConfig { grid: crate::Dim2::new(full.grid.x - 1, full.grid.y), ..full };
        let a = run(short);
        assert_eq!((a.unwritten, a.mismatched, a.first_bad), ((13 * rows) as usize, 0, Some(48)));
        eprintln!("ran on {}", gpu.info.describe());
    }

    #[test]
    fn disabling_variable_is_honoured() {
        let p = probe_unless(true);
        assert_eq!(p.skip_line().unwrap(), format!("GPU section skipped: {DISABLE_ENV} is set."));
    }
}
