//! Compiles every `kernels/*.cu` of the workspace with nvcc, when one is
//! found, into a fatbin (sm_80 and sm_90 machine code plus compute_80 PTX)
//! that `ktrav::kernels` embeds. Without nvcc the build still succeeds and
//! the kernels are simply not embedded; with nvcc, a kernel that does not
//! compile fails the build.
//!
//! nvcc is looked for in `$NVCC`, then on `PATH`, then in the workspace's
//! `.cuda-venv` (what `scripts/install-nvcc` creates), then in
//! `/usr/local/cuda/bin`.

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
    println!("cargo:rerun-if-env-changed=NVCC");
    println!("cargo:rerun-if-env-changed=PATH");
    println!("cargo:rerun-if-changed={}", root.join(".cuda-venv/pyvenv.cfg").display());

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&kernels_dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    sources.retain(|p| p.extension().is_some_and(|e| e == "cu"));
    sources.sort();
    for s in &sources {
        println!("cargo:rerun-if-changed={}", s.display());
    }
    // Headers shared by kernels also trigger a rebuild.
    if let Ok(rd) = std::fs::read_dir(&kernels_dir) {
        for e in rd.flatten() {
            if e.path().extension().is_some_and(|x| x == "cuh") {
                println!("cargo:rerun-if-changed={}", e.path().display());
            }
        }
    }

    let nvcc = find_nvcc(&root);
    let version = nvcc.as_ref().and_then(|n| nvcc_version(n));
    let nvcc = match (nvcc, &version) {
        (Some(n), Some(_)) => Some(n),
        _ => None,
    };
    if nvcc.is_none() {
        println!("cargo:warning=nvcc not found: CUDA kernels are not embedded (see scripts/install-nvcc)");
    }

    let mut gen = String::new();
    writeln!(gen, "/// The nvcc that compiled the embedded kernels, if one was found.").unwrap();
    writeln!(gen, "pub static NVCC_VERSION: Option<&str> = {:?};", version).unwrap();
    writeln!(gen, "/// Every `kernels/*.cu` file of the workspace.").unwrap();
    writeln!(gen, "pub static KERNELS: &[EmbeddedKernel] = &[").unwrap();
    for src in &sources {
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        let (fatbin, report) = match &nvcc {
            Some(n) => {
                let fb = out.join(format!("{stem}.fatbin"));
                let report = compile(n, src, &fb);
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

fn find_nvcc(root: &Path) -> Option<PathBuf> {
    if let Some(n) = env::var_os("NVCC").filter(|n| !n.is_empty()) {
        return Some(PathBuf::from(n));
    }
    if let Some(paths) = env::var_os("PATH") {
        for dir in env::split_paths(&paths) {
            let candidate = dir.join("nvcc");
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let lib = root.join(".cuda-venv/lib");
    if let Ok(rd) = std::fs::read_dir(&lib) {
        for py in rd.flatten() {
            let candidate = py.path().join("site-packages/nvidia/cu13/bin/nvcc");
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let system = PathBuf::from("/usr/local/cuda/bin/nvcc");
    system.is_file().then_some(system)
}

fn nvcc_version(nvcc: &Path) -> Option<String> {
    let out = Command::new(nvcc).arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines().find(|l| l.contains("release")).map(|l| l.trim().to_string())
}

/// Compiles one kernel file; returns ptxas's resource report.
fn compile(nvcc: &Path, src: &Path, fatbin: &Path) -> String {
    let out = Command::new(nvcc)
        .args(["--fatbin", "-std=c++17", "-O3", "-lineinfo", "-Xptxas", "-v", "-Werror", "all-warnings"])
        .args(GENCODE)
        .arg("-o")
        .arg(fatbin)
        .arg(src)
        .output()
        .unwrap_or_else(|e| panic!("could not run {}: {e}", nvcc.display()));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() {
        panic!("nvcc failed on {}:\n{}{}", src.display(), String::from_utf8_lossy(&out.stdout), stderr);
    }
    stderr
}
