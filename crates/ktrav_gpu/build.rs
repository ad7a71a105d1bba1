//! Compiles every `kernels/*.cu` of the workspace with nvcc, when one is
//! found, into a fatbin (sm_80 and sm_90 machine code plus compute_80 PTX)
//! that `ktrav_gpu::kernels` embeds. Without nvcc the build still succeeds and
//! the kernels are simply not embedded; with nvcc, a kernel that does not
//! compile fails the build.
//!
//! The `cc` crate configures the compiler: it honours `NVCC`, `CXX` (the
//! host compiler passed as `-ccbin`), `NVCC_PREPEND_FLAGS` and
//! `NVCC_APPEND_FLAGS` like any other crate that builds CUDA. When `NVCC` is
//! unset, nvcc is looked for on `PATH`, then in the workspace's `.cuda-venv`
//! (what `scripts/install-nvcc` creates), then in `/usr/local/cuda/bin`.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const GENCODE: &[&str] = &[
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_80,code=compute_80",
];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..").canonicalize().unwrap();
    let kernels_dir = root.join("kernels");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed={}", kernels_dir.display());
    for var in ["NVCC", "PATH", "CXX", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed={}", root.join(".cuda-venv/pyvenv.cfg").display());

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&kernels_dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    sources.retain(|p| p.extension().is_some_and(|e| e == "cu" || e == "cuh"));
    sources.sort();
    for s in &sources {
        println!("cargo:rerun-if-changed={}", s.display());
    }
    sources.retain(|p| p.extension().is_some_and(|e| e == "cu"));

    let nvcc = find_nvcc(&root).and_then(|path| nvcc_version(&path).map(|v| (path, v)));
    let compiler = nvcc.as_ref().and_then(|(path, _)| configure(path));
    if compiler.is_none() {
        println!("cargo:warning=nvcc not found: CUDA kernels are not embedded (see scripts/install-nvcc)");
    }
    let version = compiler.as_ref().and(nvcc.as_ref()).map(|(_, v)| v.clone());

    let mut gen = String::new();
    writeln!(gen, "/// The nvcc that compiled the embedded kernels, if one was found.").unwrap();
    writeln!(gen, "pub static NVCC_VERSION: Option<&str> = {version:?};").unwrap();
    writeln!(gen, "/// Every `kernels/*.cu` file of the workspace.").unwrap();
    writeln!(gen, "pub static KERNELS: &[EmbeddedKernel] = &[").unwrap();
    for src in &sources {
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        let (fatbin, report) = match &compiler {
            Some(tool) => {
                let fb = out.join(format!("{stem}.fatbin"));
                let report = compile(tool, src, &fb);
                let rp = out.join(format!("{stem}.ptxas.txt"));
                std::fs::write(&rp, report).unwrap();
                (
                    format!("Some(include_bytes!({:?}))", fb.display().to_string()),
                    format!("Some(include_str!({:?}))", rp.display().to_string()),
                )
            }
            None => ("None".to_string(), "None".to_string()),
        };
        writeln!(
            gen,
            "    EmbeddedKernel {{ name: {stem:?}, source: include_str!({:?}), fatbin: {fatbin}, ptxas_report: {report} }},",
            src.display().to_string()
        )
        .unwrap();
    }
    writeln!(gen, "];").unwrap();
    std::fs::write(out.join("kernels.rs"), gen).unwrap();
}

/// `NVCC` if set, else the first nvcc on `PATH`, in `.cuda-venv`, or under
/// `/usr/local/cuda`.
fn find_nvcc(root: &Path) -> Option<PathBuf> {
    if let Some(n) = env::var_os("NVCC").filter(|n| !n.is_empty()) {
        return Some(PathBuf::from(n));
    }
    let on_path = env::var_os("PATH").into_iter().flat_map(|p| env::split_paths(&p).collect::<Vec<_>>());
    let venv = std::fs::read_dir(root.join(".cuda-venv/lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|py| py.path().join("site-packages/nvidia/cu13/bin"));
    on_path
        .chain(venv)
        .chain([PathBuf::from("/usr/local/cuda/bin")])
        .map(|dir| dir.join("nvcc"))
        .find(|candidate| candidate.is_file())
}

fn nvcc_version(nvcc: &Path) -> Option<String> {
    let out = Command::new(nvcc).arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines().find(|l| l.contains("release")).map(|l| l.trim().to_string())
}

/// nvcc as `cc` configures it (host compiler, its flags, and the usual
/// environment variables), or `None` when cc cannot set it up.
fn configure(nvcc: &Path) -> Option<cc::Tool> {
    // cc reads the nvcc to use from `NVCC`; point it at the one found.
    // SAFETY: build scripts are single-threaded at this point.
    unsafe { env::set_var("NVCC", nvcc) };
    let mut build = cc::Build::new();
    build.cuda(true).cudart("none").cpp(true).debug(false).opt_level(3).warnings(false).extra_warnings(false);
    match build.try_get_compiler() {
        Ok(tool) => Some(tool),
        Err(e) => {
            println!("cargo:warning=cc could not configure nvcc ({e})");
            None
        }
    }
}

/// Compiles one kernel file into a fatbin; returns ptxas's resource report.
fn compile(tool: &cc::Tool, src: &Path, fatbin: &Path) -> String {
    let mut cmd = tool.to_command();
    cmd.args(["--fatbin", "-std=c++17", "-O3", "-lineinfo", "-Xptxas", "-v", "-Werror", "all-warnings"])
        .args(GENCODE)
        .arg("-o")
        .arg(fatbin)
        .arg(src);
    let out = cmd.output().unwrap_or_else(|e| panic!("could not run {cmd:?}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() {
        panic!("nvcc failed on {}:\n{cmd:?}\n{}{}", src.display(), String::from_utf8_lossy(&out.stdout), stderr);
    }
    stderr
}
