//! The CUDA kernels of `kernels/`, compiled at build time and embedded.
//!
//! The build script runs the pinned nvcc (see `scripts/install-nvcc`) on every
//! `kernels/*.cu` and embeds a fatbin holding sm_80 and sm_90 machine code
//! and compute_80 PTX, so a machine with only a driver can launch them. It
//! also keeps ptxas's resource report, which tests read to check what the
//! book claims about shared memory, registers and spills.

/// One `kernels/NAME.cu` file.
#[derive(Debug)]
pub struct EmbeddedKernel {
    /// The file stem, such as `k2_transpose`.
    pub name: &'static str,
    /// The CUDA source, always embedded (the book shows it).
    pub source: &'static str,
    /// The compiled fatbin, when nvcc was found at build time.
    pub fatbin: Option<&'static [u8]>,
    /// ptxas's `-v` report, when nvcc was found at build time.
    pub ptxas_report: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/kernels.rs"));

/// The kernel file called `name`, if the workspace has one.
pub fn find(name: &str) -> Option<&'static EmbeddedKernel> {
    KERNELS.iter().find(|k| k.name == name)
}

/// What ptxas reported for one entry function on one architecture.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    pub function: String,
    pub arch: String,
    pub registers: u32,
    pub shared_bytes: u32,
    pub local_bytes: u32,
    pub stack_frame_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

/// Parses ptxas's `-v` output into one record per (function, architecture).
pub fn parse_ptxas(report: &str) -> Vec<Resources> {
    let mut all: Vec<Resources> = Vec::new();
    for line in report.lines() {
        let line = line.trim().trim_start_matches("ptxas info    :").trim();
        if let Some(rest) = line.strip_prefix("Compiling entry function '") {
            let (function, tail) = rest.split_once('\'').unwrap_or((rest, ""));
            let arch = tail.rsplit('\'').nth(1).unwrap_or("").to_string();
            all.push(Resources { function: function.to_string(), arch, ..Default::default() });
        } else if let Some(cur) = all.last_mut() {
            let number_before = |unit: &str| -> Option<u32> {
                let idx = line.find(unit)?;
                line[..idx].split_whitespace().last()?.parse().ok()
            };
            if line.contains("stack frame") {
                cur.stack_frame_bytes = number_before("bytes stack frame").unwrap_or(0);
                cur.spill_store_bytes = number_before("bytes spill stores").unwrap_or(0);
                cur.spill_load_bytes = number_before("bytes spill loads").unwrap_or(0);
            } else if line.starts_with("Used ") {
                cur.registers = number_before(" registers").unwrap_or(0);
                cur.shared_bytes = number_before(" bytes smem").unwrap_or(0);
                cur.local_bytes = number_before(" bytes lmem").unwrap_or(0);
            }
        }
    }
    all
}

/// The test every chapter with a kernel file runs, in its
/// `tests/kernels.rs`: `kernels/<file>.cu`
/// declares each of `functions` as an `extern "C" __global__` entry point,
/// and, when nvcc compiled it, ptxas reported each one for both sm_80 and
/// sm_90 with no spills, no stack frame and no local memory.
///
/// Returns ptxas's records, or `None` when the build had no nvcc: then it
/// prints a skip line, and in CI (`CI` set) it fails instead.
///
/// # Panics
/// Panics on any broken promise: this is a test helper.
pub fn check_compiled(file: &str, functions: &[&str]) -> Option<Vec<Resources>> {
    let kernel = find(file).unwrap_or_else(|| panic!("kernels/{file}.cu is not embedded"));
    for f in functions {
        assert!(declares(kernel.source, f), "kernels/{file}.cu declares no extern \"C\" __global__ void {f}(");
    }
    let Some(report) = kernel.ptxas_report else {
        assert!(std::env::var_os("CI").is_none(), "CI must compile kernels/{file}.cu: run scripts/install-nvcc");
        eprintln!("skipped: nvcc not found at build time, kernels/{file}.cu was not compiled");
        return None;
    };
    let all = parse_ptxas(report);
    for f in functions {
        for arch in ["sm_80", "sm_90"] {
            let r = resources_of(&all, f, arch);
            assert_eq!((r.spill_store_bytes, r.spill_load_bytes), (0, 0), "{f} spills on {arch}");
            assert_eq!((r.local_bytes, r.stack_frame_bytes), (0, 0), "{f} uses local memory on {arch}");
        }
    }
    Some(all)
}

/// Whether `source` declares `function` as an `extern "C" __global__ void`
/// entry point (see [`ktrav::cu`]).
pub use ktrav::cu::declares;

/// The record for `function` on `arch`.
///
/// # Panics
/// Panics if ptxas reported nothing for that pair.
pub fn resources_of<'a>(all: &'a [Resources], function: &str, arch: &str) -> &'a Resources {
    all.iter()
        .find(|r| r.function == function && r.arch == arch)
        .unwrap_or_else(|| panic!("ptxas reported nothing for {function} on {arch}"))
}

/// Checks a chapter's versions against ptxas's report: each is an entry
/// point of `kernels/<file>.cu`, compiles for sm_80 and sm_90 without spills
/// or local memory, and declares the shared memory its version says.
/// Skips (returns) when the build had no nvcc, as `check_compiled` does.
pub fn check_versions(file: &str, versions: &[ktrav::ladder::Version]) {
    let names: Vec<&str> = versions.iter().map(|v| v.kernel).collect();
    let Some(all) = check_compiled(file, &names) else { return };
    for v in versions {
        for arch in ["sm_80", "sm_90"] {
            let r = resources_of(&all, v.kernel, arch);
            assert_eq!(r.shared_bytes, v.static_shared, "{} on {arch}", v.kernel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'tile_copy' for 'sm_90'
ptxas info    : Function properties for tile_copy
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 16 registers, used 1 barriers, 16 bytes lmem, 4224 bytes smem
";

    #[test]
    fn ptxas_report_is_parsed() {
        let r = parse_ptxas(SAMPLE);
        assert_eq!(
            r,
            vec![Resources {
                function: "tile_copy".into(),
                arch: "sm_90".into(),
                registers: 16,
                shared_bytes: 4224,
                local_bytes: 16,
                stack_frame_bytes: 8,
                spill_store_bytes: 4,
                spill_load_bytes: 4,
            }]
        );
    }
}

#[cfg(test)]
mod embedding {
    use super::*;

    /// In CI the pinned nvcc must be there, so kernels are really compiled;
    /// elsewhere a missing nvcc is reported as a skip, not a silent pass.
    #[test]
    fn pinned_nvcc_compiled_the_kernels() {
        match NVCC_VERSION {
            Some(v) => {
                assert!(v.contains("release 13.0"), "kernels were compiled by {v}, not the pinned 13.0");
                assert!(KERNELS.iter().all(|k| k.fatbin.is_some() && k.ptxas_report.is_some()));
            }
            None => {
                assert!(std::env::var_os("CI").is_none(), "CI must compile the kernels: run scripts/install-nvcc");
                eprintln!("skipped: nvcc not found at build time, kernels are not embedded");
            }
        }
    }
}
