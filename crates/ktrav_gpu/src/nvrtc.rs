//! Compiling CUDA C++ at run time with NVRTC, through cudarc.
//!
//! Two things need it: a lab check, which compiles the student's own `.cu`
//! file (see [`crate::check`]), and GPUs older than compute capability 8.0,
//! for which the embedded fatbin holds nothing (see [`crate::Gpu`]). NVRTC
//! needs no GPU: CI compiles every kernel, starter and wrong kernel with it.
//!
//! The library is found with [`libs::load`] first, so a missing one is a
//! line that says where it was looked for, never cudarc's panic. The pinned
//! NVRTC is the 13.0 release, like nvcc: its PTX (ISA 9.0) loads on any
//! CUDA 13.0 driver, where a newer NVRTC's PTX would be refused
//! (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`).
//!
//! A compilation gives machine code (a cubin) for the device's own
//! architecture, so the limits ptxas enforces are the ones nvcc would, and
//! ptxas's report says each kernel's registers and shared memory; the PTX
//! comes with it for the parameter check ([`crate::hints`]). Only a device
//! newer than this NVRTC gets PTX alone, which the driver finishes.
//!
//! What a student's file usually includes compiles: NVRTC is handed small
//! in-memory stand-ins for `cuda_runtime.h` and the C library headers
//! (`<cstdio>`, `<cstdint>`, `<cmath>`, ...), which it does not ship, and no
//! include folder at all ([`in_memory`]). A file's own `#include` of a path
//! would still be opened by NVRTC, so the checker refuses those before
//! compiling (`ktrav::lab::includes`).

use crate::libs::{self, Lookup};
use crate::probe::Unavailable;
use crate::sandbox;
use cudarc::nvrtc::{result, sys};
use std::ffi::CString;
use std::path::PathBuf;

mod headers;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// The library file cudarc opens.
pub const LIBRARY: &str = "libnvrtc.so.13";

/// The PyPI wheel that provides the pinned NVRTC.
pub const PINNED_WHEEL: &str = "nvidia-cuda-nvrtc==13.0.88";

/// The architecture compiled for when there is no device to ask: the
/// oldest the embedded fatbin serves, so CI checks what a lab runs.
pub const DEFAULT_ARCH: Arch = Arch { major: 8, minor: 0 };

/// A virtual GPU architecture, `compute_XY`: NVRTC emits PTX for it and
/// the driver compiles that PTX for the device when the module is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arch {
    pub major: i32,
    pub minor: i32,
}

impl Arch {
    /// The architecture of a device of this compute capability.
    pub fn of(compute_capability: (i32, i32)) -> Self {
        Arch { major: compute_capability.0, minor: compute_capability.1 }
    }

    /// `compute_90`.
    pub fn virtual_name(self) -> String {
        format!("compute_{}{}", self.major, self.minor)
    }

    /// NVRTC's number for it, as `nvrtcGetSupportedArchs` lists them (90).
    pub fn number(self) -> i32 {
        self.major * 10 + self.minor
    }
}

/// NVRTC, found and loaded.
#[derive(Clone, Debug)]
pub struct Nvrtc {
    /// Where the library was found.
    pub found: Lookup,
    /// NVRTC's own version, such as (13, 0).
    pub version: (i32, i32),
    /// The `sm_XY` numbers it can compile for (75, 80, ... 120 for 13.0).
    pub supported: Vec<i32>,
}

/// Every header NVRTC is handed, by name and in memory: the C library's
/// stand-ins and `cuda_runtime.h` and its kin. No include folder is given,
/// so these are all a file can include (the names are
/// [`ktrav::lab::includes::ALLOWED`], which the checker enforces before
/// compiling; a test ties the two lists).
pub fn in_memory() -> Vec<(&'static str, &'static str)> {
    let mut h = headers::STANDARD.to_vec();
    h.extend_from_slice(headers::CUDA_FALLBACK);
    h
}

/// How the headers are given, for the checker's record.
pub const HEADERS: &str = "in-memory headers only";

/// What one compilation produced, and what the compiler said about it.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The PTX, always produced: the parameter check reads its entry
    /// points, and it is what is loaded where there is no machine code.
    pub ptx: String,
    /// Machine code (a cubin) for `arch` itself, when it was asked for.
    pub cubin: Option<Vec<u8>>,
    pub arch: Arch,
    /// The compiler's log: warnings, usually empty. ptxas's report of each
    /// kernel's resources is in `resources` instead.
    pub log: String,
    /// What ptxas reported for each kernel of the cubin (none for PTX).
    pub resources: Vec<Resources>,
}

/// ptxas's report on one kernel: registers and memory per thread or block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// The entry point's name as the PTX has it (mangled without `extern "C"`).
    pub kernel: String,
    pub registers: u32,
    /// Static shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Stack frame per thread, in bytes.
    pub stack_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

impl Compiled {
    /// `sm_90 machine code` or `compute_75 PTX, compiled by the driver`.
    pub fn code(&self) -> String {
        match self.cubin {
            Some(_) => format!("sm_{} machine code", self.arch.number()),
            None => format!("{} PTX, compiled by the driver", self.arch.virtual_name()),
        }
    }

    /// ptxas's report on `kernel`, when there is machine code.
    pub fn resources_of(&self, kernel: &str) -> Option<&Resources> {
        self.resources.iter().find(|r| r.kernel == kernel)
    }
}

impl Resources {
    /// `10 registers per thread, 4224 bytes of static shared memory`.
    pub fn describe(&self) -> String {
        let mut s =
            format!("{} registers per thread, {} bytes of static shared memory", self.registers, self.shared_bytes);
        if self.spill_store_bytes + self.spill_load_bytes > 0 {
            s.push_str(&format!(
                ", {} bytes spilled to local memory ({} stored, {} loaded)",
                self.spill_store_bytes.max(self.spill_load_bytes),
                self.spill_store_bytes,
                self.spill_load_bytes
            ));
        }
        s
    }
}

/// Splits a log compiled with `-Xptxas=-v` into the log without ptxas's
/// `info` lines, and the resources those lines report per kernel.
pub fn split_ptxas_report(log: &str) -> (String, Vec<Resources>) {
    let mut kept = Vec::new();
    let mut found: Vec<Resources> = Vec::new();
    let number_before = |text: &str, word: &str| -> Option<u32> {
        let at = text.find(word)?;
        text[..at].split_whitespace().last()?.parse().ok()
    };
    for line in log.lines() {
        let info = line.trim_start();
        if !(info.starts_with("ptxas info") || info.starts_with("ptxas         .")) {
            kept.push(line);
            continue;
        }
        if let Some(rest) = info.split_once("Compiling entry function '").map(|(_, r)| r) {
            if let Some((name, _)) = rest.split_once('\'') {
                found.push(Resources { kernel: name.to_string(), ..Resources::default() });
            }
        } else if let Some(r) = found.last_mut() {
            if let Some(n) = number_before(info, "registers") {
                r.registers = n;
            }
            if let Some(n) = number_before(info, "bytes smem") {
                r.shared_bytes = n;
            }
            if let Some(n) = number_before(info, "bytes stack frame") {
                r.stack_bytes = n;
            }
            if let Some(n) = number_before(info, "bytes spill stores") {
                r.spill_store_bytes = n;
            }
            if let Some(n) = number_before(info, "bytes spill loads") {
                r.spill_load_bytes = n;
            }
        }
    }
    let mut text = kept.join("\n");
    if !text.trim().is_empty() && log.ends_with('\n') {
        text.push('\n');
    }
    if text.trim().is_empty() {
        text.clear();
    }
    (text, found)
}

/// Why a compilation gave no PTX.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileFailure {
    /// The compiler rejected the source; its log says why.
    #[error("the compiler rejected it: {}", first_error(.log))]
    Rejected { log: String },
    /// Anything else (NVRTC itself failed, or cannot target that architecture).
    #[error("{0}")]
    Failed(String),
}

/// The first line of a compiler's log that names an error.
fn first_error(log: &str) -> &str {
    log.lines().find(|l| l.contains("error")).unwrap_or("see the compiler's log").trim()
}

/// What to say when NVRTC is missing: where it was looked for and how to
/// install the pinned one.
pub fn missing_line(found: &Lookup) -> String {
    format!(
        "NVRTC is needed to compile kernels at run time, but {}; install the pinned one with \
         `pip install {PINNED_WHEEL}` (then put its nvidia/cu13/lib on LD_LIBRARY_PATH, or run \
         scripts/install-nvcc in the workspace) or install the CUDA 13.0 toolkit",
        found.describe()
    )
}

/// Finds and loads NVRTC once per process; `Err` is one line saying where
/// it looked and how to install it. Never panics.
pub fn locate() -> Result<&'static Nvrtc, Unavailable> {
    static FOUND: OnceLock<Result<Nvrtc, Unavailable>> = OnceLock::new();
    FOUND.get_or_init(find).as_ref().map_err(Clone::clone)
}

fn find() -> Result<Nvrtc, Unavailable> {
    let found = libs::load(LIBRARY);
    if !found.found() {
        return Err(Unavailable(missing_line(&found)));
    }
    // NVRTC opens its builtins library by name when it compiles; one found
    // in a folder the loader does not search is loaded from there first.
    if let Lookup::Folder(path) = &found {
        load_builtins_beside(path);
    }
    // A compilation runs where it cannot open files (see `sandbox`), so the
    // builtins are loaded now, from beside the library the loader mapped.
    for dir in sandbox::readable().iter().filter(|d| !d.starts_with("/proc")) {
        load_builtins_beside(&dir.join(LIBRARY));
    }
    // SAFETY: only tries to dlopen the library by its usual names; the one
    // found above is already loaded, so this finds it by its soname.
    if !unsafe { sys::is_culib_present() } {
        return Err(Unavailable(format!("{LIBRARY} was found at {} but cudarc could not load it", found.describe())));
    }
    let versions = catch_unwind(|| -> Result<((i32, i32), Vec<i32>), result::NvrtcError> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: nvrtcVersion writes two ints.
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result()?;
        let mut n = 0;
        // SAFETY: writes one int, then `n` ints into a buffer of that size.
        unsafe { sys::nvrtcGetNumSupportedArchs(&mut n) }.result()?;
        let mut archs = vec![0i32; n.max(0) as usize];
        unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }.result()?;
        Ok(((major, minor), archs))
    });
    match versions {
        Ok(Ok((version, supported))) => Ok(Nvrtc { found, version, supported }),
        Ok(Err(e)) => Err(Unavailable(format!("NVRTC at {} did not answer ({e})", found.describe()))),
        Err(_) => Err(Unavailable(format!("NVRTC at {} is missing a function cudarc needs", found.describe()))),
    }
}

/// Loads `libnvrtc-builtins.so.X.Y` from the folder that holds `library`.
fn load_builtins_beside(library: &std::path::Path) {
    let Some(dir) = library.parent() else { return };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut builtins: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("libnvrtc-builtins.so."))
        .collect();
    builtins.sort();
    for name in builtins {
        libs::load(&dir.join(name).to_string_lossy());
    }
}

impl Nvrtc {
    /// `NVRTC 13.0 (/path/libnvrtc.so.13)`.
    pub fn describe(&self) -> String {
        format!("NVRTC {}.{} ({})", self.version.0, self.version.1, self.found.describe())
    }

    /// `NVRTC 13.0`, without where it was found.
    pub fn version_line(&self) -> String {
        format!("NVRTC {}.{}", self.version.0, self.version.1)
    }

    /// Whether this NVRTC can compile for `arch`.
    pub fn supports(&self, arch: Arch) -> bool {
        self.supported.contains(&arch.number())
    }

    /// Compiles `source` (named `name` in the compiler's messages) to
    /// machine code for `arch` (`-arch=sm_XY`, a cubin) and its PTX, with
    /// the options the build gives nvcc (`-std=c++17`) and the in-memory
    /// headers (see [`in_memory`]).
    /// ptxas's report on each kernel is in [`Compiled::resources`]; its
    /// limits (48 KB of static shared memory, say) are errors here, as
    /// with nvcc. Never panics.
    pub fn compile(&self, source: &str, name: &str, arch: Arch) -> Result<Compiled, CompileFailure> {
        self.run(source, name, arch, true)
    }

    /// Compiles `source` to PTX only, for the virtual architecture
    /// `compute_XY`: what the driver finishes when the module is loaded.
    pub fn compile_ptx(&self, source: &str, name: &str, arch: Arch) -> Result<Compiled, CompileFailure> {
        self.run(source, name, arch, false)
    }

    /// Compiles `source` for a device of architecture `device`: machine
    /// code for it where this NVRTC knows it, else PTX for the newest
    /// architecture it knows below the device (a newer GPU than this
    /// NVRTC), which the driver compiles for the device.
    pub fn compile_for(&self, source: &str, name: &str, device: Arch) -> Result<Compiled, CompileFailure> {
        if self.supports(device) {
            return self.compile(source, name, device);
        }
        let older = self.supported.iter().copied().filter(|&n| n <= device.number()).max();
        let arch = older.map(|n| Arch { major: n / 10, minor: n % 10 }).unwrap_or(device);
        self.compile_ptx(source, name, arch)
    }

    fn refuse_unsupported(&self, arch: Arch) -> Result<(), CompileFailure> {
        if self.supports(arch) {
            return Ok(());
        }
        let oldest = self.supported.iter().min().copied().unwrap_or(0);
        Err(CompileFailure::Failed(format!(
            "NVRTC {}.{} cannot compile for {} (compute capability {}.{}); the oldest it supports is \
             compute capability {}.{}",
            self.version.0,
            self.version.1,
            arch.virtual_name(),
            arch.major,
            arch.minor,
            oldest / 10,
            oldest % 10
        )))
    }

    /// The options of one compilation. Line information is kept, as the
    /// build's nvcc keeps it (`-lineinfo`), for compute-sanitizer's reports
    /// of where a finding happened; it does not change the machine code.
    pub fn options(&self, arch: Arch, machine_code: bool) -> Vec<String> {
        let mut options = vec![
            if machine_code {
                format!("-arch=sm_{}", arch.number())
            } else {
                format!("--gpu-architecture={}", arch.virtual_name())
            },
            "-std=c++17".to_string(),
            "--generate-line-info".to_string(),
        ];
        if machine_code {
            options.push("-Xptxas=-v".to_string());
        }
        options
    }

    fn run(&self, source: &str, name: &str, arch: Arch, machine_code: bool) -> Result<Compiled, CompileFailure> {
        self.refuse_unsupported(arch)?;
        match self.run_once(source, name, arch, machine_code, machine_code) {
            // With its report on, ptxas logs no error when it refuses a
            // kernel (too much shared memory): ask again without the report.
            Err(CompileFailure::Rejected { log }) if machine_code && !log.contains("error") => {
                self.run_once(source, name, arch, machine_code, false)
            }
            other => other,
        }
    }

    /// One compilation, in a thread of its own that can read only NVRTC's
    /// own folders and write nothing, where the kernel offers Landlock
    /// ([`sandbox`]).
    fn run_once(
        &self,
        source: &str,
        name: &str,
        arch: Arch,
        machine_code: bool,
        report: bool,
    ) -> Result<Compiled, CompileFailure> {
        static READABLE: OnceLock<Vec<PathBuf>> = OnceLock::new();
        let readable = READABLE.get_or_init(sandbox::readable);
        sandbox::run_restricted(readable, || self.run_unsealed(source, name, arch, machine_code, report))
            .map(|(compiled, _)| compiled)
            .unwrap_or_else(|| {
                Err(CompileFailure::Failed("NVRTC failed (its thread could not start, or panicked)".into()))
            })
    }

    fn run_unsealed(
        &self,
        source: &str,
        name: &str,
        arch: Arch,
        machine_code: bool,
        report: bool,
    ) -> Result<Compiled, CompileFailure> {
        let src = CString::new(source)
            .map_err(|_| CompileFailure::Failed(format!("{name} holds a NUL byte: it is not CUDA source")))?;
        let cname = CString::new(name.replace('\0', "?")).expect("NULs were replaced");
        let mut options = self.options(arch, machine_code);
        if !report {
            options.retain(|o| o != "-Xptxas=-v");
        }
        let in_memory = in_memory();
        let header_text: Vec<CString> =
            in_memory.iter().map(|(_, t)| CString::new(*t).expect("no NUL in a header")).collect();
        let header_names: Vec<CString> =
            in_memory.iter().map(|(n, _)| CString::new(*n).expect("no NUL in a name")).collect();
        let run = catch_unwind(AssertUnwindSafe(|| -> Result<Compiled, CompileFailure> {
            let texts: Vec<*const std::ffi::c_char> = header_text.iter().map(|c| c.as_ptr()).collect();
            let names: Vec<*const std::ffi::c_char> = header_names.iter().map(|c| c.as_ptr()).collect();
            let mut prog = std::mem::MaybeUninit::uninit();
            // SAFETY: every pointer is to a NUL-terminated string that outlives
            // the call; the two arrays hold `texts.len()` entries each.
            unsafe {
                sys::nvrtcCreateProgram(
                    prog.as_mut_ptr(),
                    src.as_ptr(),
                    cname.as_ptr(),
                    texts.len() as i32,
                    texts.as_ptr(),
                    names.as_ptr(),
                )
            }
            .result()
            .map_err(|e| CompileFailure::Failed(format!("NVRTC could not start a program ({e})")))?;
            // SAFETY: created just above.
            let prog = unsafe { prog.assume_init() };
            // SAFETY: `prog` was just created and is destroyed below, once.
            let compiled = unsafe { result::compile_program(prog, &options) };
            let raw_log = unsafe { result::get_program_log(prog) }.map(|raw| text_of(&raw)).unwrap_or_default();
            let out = match compiled {
                Ok(()) => unsafe { result::get_ptx(prog) }
                    .map(|raw| text_of(&raw))
                    .map_err(|e| CompileFailure::Failed(format!("NVRTC gave no PTX ({e})")))
                    .and_then(|ptx| {
                        let cubin = if machine_code { Some(unsafe { cubin_of(prog) }?) } else { None };
                        Ok((ptx, cubin))
                    }),
                Err(_) => Err(CompileFailure::Rejected { log: split_ptxas_report(&raw_log).0 }),
            };
            let _ = unsafe { result::destroy_program(prog) };
            let (ptx, cubin) = out?;
            let (log, resources) = split_ptxas_report(&raw_log);
            Ok(Compiled { ptx, cubin, arch, log, resources })
        }));
        run.unwrap_or_else(|_| Err(CompileFailure::Failed("NVRTC failed (a call into the library panicked)".into())))
    }
}

/// The cubin of a program compiled for a real architecture.
///
/// # Safety
/// `prog` must be a live program that compiled.
unsafe fn cubin_of(prog: sys::nvrtcProgram) -> Result<Vec<u8>, CompileFailure> {
    let mut size = 0usize;
    unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) }
        .result()
        .map_err(|e| CompileFailure::Failed(format!("NVRTC gave no machine code ({e})")))?;
    let mut bytes = vec![0u8; size];
    unsafe { sys::nvrtcGetCUBIN(prog, bytes.as_mut_ptr().cast()) }
        .result()
        .map_err(|e| CompileFailure::Failed(format!("NVRTC gave no machine code ({e})")))?;
    if bytes.is_empty() {
        return Err(CompileFailure::Failed("NVRTC gave an empty cubin".into()));
    }
    Ok(bytes)
}

/// A NUL-terminated C buffer as text.
fn text_of(raw: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// For tests that need NVRTC: the compiler, or `None` after printing why
/// the test is skipped. In CI (`CI` set) a missing NVRTC fails instead.
///
/// # Panics
/// Panics in CI when NVRTC is missing: CI must compile every kernel.
pub fn for_tests() -> Option<&'static Nvrtc> {
    match locate() {
        Ok(n) => Some(n),
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "CI must compile kernels with NVRTC: {why}");
            eprintln!("skipped: {why}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_are_named_as_nvrtc_expects() {
        assert_eq!(Arch::of((9, 0)).virtual_name(), "compute_90");
        assert_eq!(Arch::of((7, 5)).number(), 75);
        assert!(Arch::of((7, 5)) < DEFAULT_ARCH && DEFAULT_ARCH < Arch::of((9, 0)));
    }

    #[test]
    fn a_missing_nvrtc_says_where_it_looked_and_how_to_install() {
        let line = missing_line(&libs::load("libktrav_no_nvrtc.so.13"));
        assert!(line.contains("not found (looked in") && line.contains(PINNED_WHEEL) && !line.contains('\n'));
    }

    #[test]
    fn compiles_to_machine_code_and_ptx_and_returns_the_log_of_an_error() {
        let Some(nvrtc) = for_tests() else { return };
        assert_eq!(nvrtc.version, (13, 0), "the pinned NVRTC is 13.0, found {}", nvrtc.describe());
        // A T4 (7.5) is served at run time; a V100 (7.0) is below CUDA 13.0's floor.
        assert!(nvrtc.supports(Arch::of((7, 5))) && nvrtc.supports(Arch::of((9, 0))));
        assert!(!nvrtc.supports(Arch::of((7, 0))));
        let ok =
            nvrtc.compile("extern \"C\" __global__ void k(float* o) { o[threadIdx.x] = 1.0f; }", "ok.cu", DEFAULT_ARCH);
        let ok = ok.expect("a valid kernel compiles");
        assert!(ok.ptx.contains(".target sm_80") && ok.ptx.contains(".entry k("), "{}", ok.ptx);
        assert!(ok.ptx.contains(".version 9.0"), "NVRTC 13.0 emits PTX ISA 9.0");
        assert!(ok.ptx.contains(".loc") && ok.ptx.contains("ok.cu"), "line information names the file: {}", ok.ptx);
        let cubin = ok.cubin.as_deref().expect("machine code for sm_80");
        assert_eq!(&cubin[..4], b"\x7fELF", "a cubin is an ELF file");
        assert_eq!(ok.code(), "sm_80 machine code");
        assert!(ok.log.is_empty(), "ptxas's report is taken out of the log: {:?}", ok.log);
        let ptx_only = nvrtc
            .compile_ptx("extern \"C\" __global__ void k(float* o) { o[0] = 1.0f; }", "p.cu", DEFAULT_ARCH)
            .unwrap();
        assert!(ptx_only.cubin.is_none() && ptx_only.resources.is_empty() && ptx_only.ptx.contains(".entry k("));
        assert_eq!(ptx_only.code(), "compute_80 PTX, compiled by the driver");
        let bad =
            nvrtc.compile("extern \"C\" __global__ void k(float* o) { o[0] = undeclared; }", "bad.cu", DEFAULT_ARCH);
        match bad {
            Err(CompileFailure::Rejected { log }) => {
                assert!(log.contains("bad.cu") && log.contains("undeclared"), "{log}")
            }
            other => panic!("a compile error gave {other:?}"),
        }
        let nul = nvrtc.compile("a\0b", "nul.cu", DEFAULT_ARCH).unwrap_err();
        assert!(nul.to_string().contains("NUL byte"));
        let old = nvrtc.compile("", "old.cu", Arch::of((7, 0))).unwrap_err();
        assert!(old.to_string().contains("cannot compile for compute_70") && old.to_string().contains("7.5"), "{old}");
        // A device newer than any architecture NVRTC knows gets PTX for the newest it knows.
        let newest = *nvrtc.supported.iter().max().unwrap();
        let future =
            nvrtc.compile_for("extern \"C\" __global__ void k() {}", "f.cu", Arch::of((newest / 10 + 1, 0))).unwrap();
        assert!(future.cubin.is_none() && future.arch.number() == newest, "{:?}", future.arch);
        let own = nvrtc.compile_for("extern \"C\" __global__ void k() {}", "f.cu", Arch::of((9, 0))).unwrap();
        assert_eq!(own.code(), "sm_90 machine code");
    }

    /// ptxas's report gives each kernel's registers and shared memory; its
    /// limits are errors, as with nvcc, where PTX alone would pass them.
    #[test]
    fn machine_code_reports_resources_and_enforces_ptxas_limits() {
        let Some(nvrtc) = for_tests() else { return };
        let tiled = "extern \"C\" __global__ void tiled(float* o) {
            __shared__ float tile[32][33];
            tile[threadIdx.y][threadIdx.x] = o[threadIdx.x];
            __syncthreads();
            o[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
        }";
        let c = nvrtc.compile(tiled, "tiled.cu", Arch::of((9, 0))).unwrap();
        let r = c.resources_of("tiled").expect("ptxas reports the kernel");
        assert_eq!(r.shared_bytes, 32 * 33 * 4);
        assert!(r.registers > 0 && r.registers < 255, "{r:?}");
        assert!(r
            .describe()
            .starts_with(&format!("{} registers per thread, 4224 bytes of static shared memory", r.registers)));
        let huge = "extern \"C\" __global__ void huge(float* o) {
            __shared__ float s[13000];
            s[threadIdx.x] = 1.0f; __syncthreads(); o[threadIdx.x] = s[12999 - threadIdx.x];
        }";
        match nvrtc.compile(huge, "huge.cu", Arch::of((9, 0))) {
            Err(CompileFailure::Rejected { log }) => assert!(log.contains("too much shared data"), "{log}"),
            other => panic!("52 KB of static shared memory compiled to machine code: {other:?}"),
        }
        assert!(nvrtc.compile_ptx(huge, "huge.cu", Arch::of((9, 0))).is_ok(), "PTX alone does not meet ptxas's limit");
    }

    #[test]
    fn ptxas_reports_are_read_per_kernel_and_left_out_of_the_log() {
        let log = "k.cu(3): warning: a warning\n\
ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'first' for 'sm_90'\n\
ptxas info    : Function properties for first\n\
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 40 registers, used 1 barriers, 4224 bytes smem\n\
ptxas info    : Compiling entry function '_Z6secondPf' for 'sm_90'\n\
ptxas info    : Used 8 registers\n\
ptxas info    : Compile time = 3.119 ms\n";
        let (kept, found) = split_ptxas_report(log);
        assert_eq!(kept, "k.cu(3): warning: a warning\n");
        assert_eq!(found.len(), 2);
        assert_eq!(
            found[0],
            Resources {
                kernel: "first".into(),
                registers: 40,
                shared_bytes: 4224,
                stack_bytes: 16,
                spill_store_bytes: 8,
                spill_load_bytes: 4
            }
        );
        assert_eq!((found[1].kernel.as_str(), found[1].registers, found[1].shared_bytes), ("_Z6secondPf", 8, 0));
        assert!(found[0].describe().contains("8 bytes spilled to local memory"));
        assert_eq!(split_ptxas_report("ptxas info    : 0 bytes gmem\n").0, "");
    }

    /// The first lines students write compile from the in-memory headers
    /// alone, and a header that is not among them is not found: no include
    /// folder is searched.
    #[test]
    fn usual_includes_compile_in_memory_and_nothing_else_is_found() {
        let Some(nvrtc) = for_tests() else { return };
        let body = "extern \"C\" __global__ void k(float* o, std::size_t n) {
            std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
            int64_t wide = INT_MAX; uint64_t top = UINT64_MAX; (void)top;
            if (i < n) o[i] = std::sqrt(std::fabs(o[i])) + std::min(1.0f, FLT_EPSILON) + sqrtf(2.0f) + (float)wide;
            if (i == 0) { printf(\"%u\\n\", i); std::printf(\"%d\\n\", 1); }
            assert(n > 0);
        }\n";
        let lines: Vec<String> = ktrav::lab::includes::ALLOWED.iter().map(|h| format!("#include <{h}>")).collect();
        let source = format!("{}\n{body}", lines.join("\n"));
        if let Err(e) = nvrtc.compile(&source, "usual.cu", DEFAULT_ARCH) {
            panic!("the usual includes do not compile: {e:?}");
        }
        let quoted = "#include \"cuda_runtime.h\"\n#include \"cstdio\"\nextern \"C\" __global__ void k() {}";
        nvrtc.compile(quoted, "quoted.cu", DEFAULT_ARCH).expect("the quoted form finds the same headers");
        let half = "#include <cuda_fp16.h>\nextern \"C\" __global__ void h(__half* o) { o[0] = __float2half(1.0f); }";
        match nvrtc.compile(half, "half.cu", DEFAULT_ARCH) {
            Err(CompileFailure::Rejected { log }) => assert!(log.contains("cuda_fp16.h"), "{log}"),
            other => panic!("a header outside the in-memory set was found: {other:?}"),
        }
    }

    /// Without the checker's allow-list, a compilation still cannot read a
    /// file of the machine where the kernel offers Landlock: an include of
    /// a planted file is an error that quotes nothing, where an unsealed
    /// compilation reads and quotes it.
    #[test]
    fn a_sealed_compilation_cannot_read_the_machines_files() {
        let Some(nvrtc) = for_tests() else { return };
        let status = sandbox::probe();
        if !status.active() {
            eprintln!("skipped: Landlock is {}", status.describe());
            return;
        }
        let d = std::env::temp_dir().join(format!("ktrav-sealed-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let planted = d.join("planted.h");
        std::fs::write(&planted, "planted_secret_word;\n").unwrap();
        let source = format!("#include \"{}\"\nextern \"C\" __global__ void k() {{}}\n", planted.display());
        match nvrtc.run_unsealed(&source, "open.cu", DEFAULT_ARCH, false, false) {
            Err(CompileFailure::Rejected { log }) => assert!(log.contains("planted_secret_word"), "{log}"),
            other => panic!("an unsealed compilation did not read the planted file: {other:?}"),
        }
        match nvrtc.compile_ptx(&source, "sealed.cu", DEFAULT_ARCH) {
            Err(CompileFailure::Rejected { log }) => {
                assert!(!log.contains("planted_secret_word"), "the sealed compilation read the file: {log}");
                assert!(log.contains("cannot open source file"), "{log}");
            }
            other => panic!("a sealed compilation of an include of a planted file gave {other:?}"),
        }
        for etc in ["/etc/hostname", "/etc/passwd"] {
            let source = format!("#include \"{etc}\"\nextern \"C\" __global__ void k() {{}}\n");
            assert!(nvrtc.compile_ptx(&source, "etc.cu", DEFAULT_ARCH).is_err(), "{etc} was read");
        }
        std::fs::remove_dir_all(d).unwrap();
    }

    /// The checker's allow-list and the headers handed over are one list.
    #[test]
    fn the_allow_list_is_the_in_memory_headers() {
        let mut given: Vec<&str> = in_memory().iter().map(|(n, _)| *n).collect();
        given.sort();
        let mut allowed = ktrav::lab::includes::ALLOWED.to_vec();
        allowed.sort();
        assert_eq!(given, allowed);
        for (name, text) in in_memory() {
            for line in text.lines().filter(|l| l.trim_start().starts_with("#include")) {
                let inner = line.trim_start().trim_start_matches("#include").trim();
                let inner = inner.trim_matches(|c| c == '<' || c == '>' || c == '"');
                assert!(allowed.contains(&inner), "{name} includes {inner}, which is not handed over");
            }
        }
    }
}
