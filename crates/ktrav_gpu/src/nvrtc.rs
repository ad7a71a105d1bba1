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

use crate::libs::{self, Lookup};
use crate::probe::Unavailable;
use cudarc::nvrtc::{result, sys};
use std::ffi::CString;
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

/// PTX from one compilation, and what the compiler said about it.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub ptx: String,
    pub arch: Arch,
    /// The compiler's log: warnings, usually empty.
    pub log: String,
}

/// Why a compilation gave no PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileFailure {
    /// The compiler rejected the source; its log says why.
    Rejected { log: String },
    /// Anything else (NVRTC itself failed, or cannot target that architecture).
    Failed(String),
}

impl std::fmt::Display for CompileFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileFailure::Rejected { log } => {
                let first = log.lines().find(|l| l.contains("error")).unwrap_or("see the compiler's log");
                write!(f, "the compiler rejected it: {}", first.trim())
            }
            CompileFailure::Failed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for CompileFailure {}

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
    FOUND.get_or_init(|| find().map_err(Unavailable)).as_ref().map_err(Clone::clone)
}

fn find() -> Result<Nvrtc, String> {
    let found = libs::load(LIBRARY);
    if !found.found() {
        return Err(missing_line(&found));
    }
    // NVRTC opens its builtins library by name when it compiles; one found
    // in a folder the loader does not search is loaded from there first.
    if let Lookup::Folder(path) = &found {
        load_builtins_beside(path);
    }
    // SAFETY: only tries to dlopen the library by its usual names; the one
    // found above is already loaded, so this finds it by its soname.
    if !unsafe { sys::is_culib_present() } {
        return Err(format!("{LIBRARY} was found at {} but cudarc could not load it", found.describe()));
    }
    let versions = catch_unwind(|| -> Result<((i32, i32), Vec<i32>), String> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: nvrtcVersion writes two ints.
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result().map_err(|e| e.to_string())?;
        let mut n = 0;
        // SAFETY: writes one int, then `n` ints into a buffer of that size.
        unsafe { sys::nvrtcGetNumSupportedArchs(&mut n) }.result().map_err(|e| e.to_string())?;
        let mut archs = vec![0i32; n.max(0) as usize];
        unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }.result().map_err(|e| e.to_string())?;
        Ok(((major, minor), archs))
    });
    match versions {
        Ok(Ok((version, supported))) => Ok(Nvrtc { found, version, supported }),
        Ok(Err(e)) => Err(format!("NVRTC at {} did not answer ({e})", found.describe())),
        Err(_) => Err(format!("NVRTC at {} is missing a function cudarc needs", found.describe())),
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

    /// Whether this NVRTC can compile for `arch`.
    pub fn supports(&self, arch: Arch) -> bool {
        self.supported.contains(&arch.number())
    }

    /// Compiles `source` (named `name` in the compiler's messages) to PTX for
    /// `arch`, with the options the build gives nvcc (`-std=c++17`).
    /// Never panics.
    pub fn compile(&self, source: &str, name: &str, arch: Arch) -> Result<Compiled, CompileFailure> {
        if !self.supports(arch) {
            let oldest = self.supported.iter().min().copied().unwrap_or(0);
            return Err(CompileFailure::Failed(format!(
                "NVRTC {}.{} cannot compile for {} (compute capability {}.{}); the oldest it supports is \
                 compute capability {}.{}",
                self.version.0,
                self.version.1,
                arch.virtual_name(),
                arch.major,
                arch.minor,
                oldest / 10,
                oldest % 10
            )));
        }
        let src = CString::new(source)
            .map_err(|_| CompileFailure::Failed(format!("{name} holds a NUL byte: it is not CUDA source")))?;
        let cname = CString::new(name.replace('\0', "?")).expect("NULs were replaced");
        let options = [format!("--gpu-architecture={}", arch.virtual_name()), "-std=c++17".to_string()];
        let run = catch_unwind(AssertUnwindSafe(|| -> Result<Compiled, CompileFailure> {
            let prog = result::create_program(&src, Some(&cname))
                .map_err(|e| CompileFailure::Failed(format!("NVRTC could not start a program ({e})")))?;
            // SAFETY: `prog` was just created and is destroyed below, once.
            let compiled = unsafe { result::compile_program(prog, &options) };
            let log = unsafe { result::get_program_log(prog) }.map(|raw| text_of(&raw)).unwrap_or_default();
            let ptx = match compiled {
                Ok(()) => unsafe { result::get_ptx(prog) }
                    .map(|raw| text_of(&raw))
                    .map_err(|e| CompileFailure::Failed(format!("NVRTC gave no PTX ({e})"))),
                Err(_) => Err(CompileFailure::Rejected { log: log.clone() }),
            };
            let _ = unsafe { result::destroy_program(prog) };
            Ok(Compiled { ptx: ptx?, arch, log })
        }));
        run.unwrap_or_else(|_| Err(CompileFailure::Failed("NVRTC failed (a call into the library panicked)".into())))
    }
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
    fn compiles_to_ptx_and_returns_the_log_of_an_error() {
        let Some(nvrtc) = for_tests() else { return };
        assert_eq!(nvrtc.version, (13, 0), "the pinned NVRTC is 13.0, found {}", nvrtc.describe());
        // A T4 (7.5) is served at run time; a V100 (7.0) is below CUDA 13.0's floor.
        assert!(nvrtc.supports(Arch::of((7, 5))) && nvrtc.supports(Arch::of((9, 0))));
        assert!(!nvrtc.supports(Arch::of((7, 0))));
        let ok = nvrtc.compile("extern \"C\" __global__ void k(float* o) { o[threadIdx.x] = 1.0f; }", "ok.cu", DEFAULT_ARCH);
        let ok = ok.expect("a valid kernel compiles");
        assert!(ok.ptx.contains(".target sm_80") && ok.ptx.contains(".entry k("), "{}", ok.ptx);
        assert!(ok.ptx.contains(".version 9.0"), "NVRTC 13.0 emits PTX ISA 9.0");
        let bad = nvrtc.compile("extern \"C\" __global__ void k(float* o) { o[0] = undeclared; }", "bad.cu", DEFAULT_ARCH);
        match bad {
            Err(CompileFailure::Rejected { log }) => assert!(log.contains("bad.cu") && log.contains("undeclared"), "{log}"),
            other => panic!("a compile error gave {other:?}"),
        }
        let nul = nvrtc.compile("a\0b", "nul.cu", DEFAULT_ARCH).unwrap_err();
        assert!(nul.to_string().contains("NUL byte"));
        let old = nvrtc.compile("", "old.cu", Arch::of((7, 0))).unwrap_err();
        assert!(old.to_string().contains("cannot compile for compute_70") && old.to_string().contains("7.5"), "{old}");
    }
}
