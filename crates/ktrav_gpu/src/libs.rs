//! Finding the CUDA libraries loaded at run time (the driver, cuBLAS,
//! NVRTC), saying where each was looked for.
//!
//! cudarc opens each library by its plain name, which finds only what the
//! dynamic loader's path holds. CUDA installs often keep the libraries in a
//! folder that path does not name (`/usr/local/cuda/targets/.../lib`), so
//! when the plain name fails, the usual CUDA folders are tried by full path,
//! and a library found there is loaded globally: cudarc's later open by
//! name then finds it already loaded.

use std::path::{Path, PathBuf};

/// Where a library was found, or everywhere it was looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Found on the loader's own path under this name.
    LoaderPath(String),
    /// Found, and loaded, at this full path.
    Folder(PathBuf),
    /// Not found; what was searched, in order.
    Missing { name: String, searched: Vec<String> },
}

impl Lookup {
    pub fn found(&self) -> bool {
        !matches!(self, Lookup::Missing { .. })
    }

    /// `libcublas.so.13 from /usr/local/cuda/...` or where it was looked for.
    pub fn describe(&self) -> String {
        match self {
            Lookup::LoaderPath(name) => format!("{name} on the loader's path"),
            Lookup::Folder(path) => format!("{}", path.display()),
            Lookup::Missing { name, searched } => format!("{name} not found (looked in {})", searched.join(", ")),
        }
    }
}

/// The folders tried after the loader's path, in order.
pub fn cuda_folders() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let home = PathBuf::from(home);
            dirs.push(home.join("targets/x86_64-linux/lib"));
            dirs.push(home.join("lib64"));
        }
    }
    for home in ["/usr/local/cuda", "/usr/local/cuda-13.0", "/usr/local/cuda-13"] {
        dirs.push(Path::new(home).join("targets/x86_64-linux/lib"));
        dirs.push(Path::new(home).join("lib64"));
    }
    // The pinned PyPI wheels (`nvidia-cuda-nvrtc`, ...) of a workspace venv:
    // the one this was built in, then one in the current folder (a binary
    // copied to another checkout, run from its root).
    let mut venvs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.cuda-venv/lib")];
    if let Ok(here) = std::env::current_dir() {
        venvs.push(here.join(".cuda-venv/lib"));
    }
    for venv in venvs {
        if let Ok(rd) = std::fs::read_dir(venv) {
            for py in rd.flatten() {
                let dir = py.path().join("site-packages/nvidia/cu13/lib");
                if !dirs.iter().any(|d: &PathBuf| d.canonicalize().ok() == dir.canonicalize().ok() && dir.exists()) {
                    dirs.push(dir);
                }
            }
        }
    }
    dirs.push(PathBuf::from("/usr/lib/x86_64-linux-gnu"));
    dirs
}

/// Loads `file` (such as `libcublas.so.13`): by name on the loader's path,
/// else from the first CUDA folder holding it. A library loaded from a
/// folder stays loaded for the life of the process.
pub fn load(file: &str) -> Lookup {
    if open(Path::new(file)) {
        return Lookup::LoaderPath(file.to_string());
    }
    let mut searched = vec![loader_path()];
    for dir in cuda_folders() {
        let path = dir.join(file);
        if path.is_file() && open(&path) {
            return Lookup::Folder(path);
        }
        searched.push(dir.display().to_string());
    }
    Lookup::Missing { name: file.to_string(), searched }
}

/// Loads `file` by name on the loader's path only.
pub fn load_from_loader_path(file: &str) -> Lookup {
    if open(Path::new(file)) {
        return Lookup::LoaderPath(file.to_string());
    }
    Lookup::Missing {
        name: file.to_string(),
        searched: vec!["the loader's path (LD_LIBRARY_PATH and the ldconfig cache)".into()],
    }
}

fn loader_path() -> String {
    match std::env::var("LD_LIBRARY_PATH") {
        Ok(p) if !p.is_empty() => format!("the loader's path: LD_LIBRARY_PATH={p} and the ldconfig cache"),
        _ => "the loader's path: the ldconfig cache, LD_LIBRARY_PATH unset".to_string(),
    }
}

/// Opens a library globally and keeps it open; false if the loader refuses.
fn open(path: &Path) -> bool {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading a CUDA library runs only its initialisers, which have
    // no preconditions; the handle is leaked so it is never unloaded.
    match unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) } {
        Ok(lib) => {
            std::mem::forget(lib);
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_says_where_it_looked() {
        let l = load("libktrav_no_such_library.so.1");
        assert!(!l.found());
        let text = l.describe();
        assert!(text.contains("not found") && text.contains("loader's path") && text.contains("/usr/local/cuda"));
    }

    #[test]
    fn a_system_library_is_found() {
        assert!(load("libm.so.6").found());
    }
}
