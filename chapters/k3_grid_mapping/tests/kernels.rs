//! The K.3 copy kernels as ptxas compiled them: both mappings, both
//! embedded architectures, no shared memory, no spills, no local memory.

use ktrav::kernels::{self, Resources};

/// ptxas's records for the kernel file, or `None` (a reported skip) when the
/// build had no nvcc. In CI a missing nvcc is a failure.
fn resources(file: &str) -> Option<Vec<Resources>> {
    let kernel = kernels::find(file).unwrap_or_else(|| panic!("kernels/{file}.cu is not embedded"));
    assert!(kernel.source.contains("extern \"C\" __global__"), "kernels/{file}.cu has no entry point");
    match kernel.ptxas_report {
        Some(report) => Some(kernels::parse_ptxas(report)),
        None => {
            assert!(std::env::var_os("CI").is_none(), "CI must compile kernels/{file}.cu: run scripts/install-nvcc");
            eprintln!("skipped: nvcc not found at build time, kernels/{file}.cu was not compiled");
            None
        }
    }
}

#[test]
fn both_copies_compile_lean() {
    let Some(all) = resources("k3_grid_mapping") else { return };
    for function in ["copy_x_to_col", "copy_x_to_row"] {
        for arch in ["sm_80", "sm_90"] {
            let r = all
                .iter()
                .find(|r| r.function == function && r.arch == arch)
                .unwrap_or_else(|| panic!("ptxas reported nothing for {function} on {arch}"));
            assert_eq!(r.shared_bytes, 0, "{function} on {arch}");
            assert_eq!((r.spill_store_bytes, r.spill_load_bytes), (0, 0), "{function} spills on {arch}");
            assert_eq!((r.local_bytes, r.stack_frame_bytes), (0, 0), "{function} uses local memory on {arch}");
        }
    }
}
