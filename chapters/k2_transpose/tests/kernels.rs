//! What the K.2 page claims about the compiled kernels, read from ptxas's
//! own resource report (`-Xptxas -v`) for both embedded architectures.

use k2_transpose::{TileLayout, TILE};
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
fn shared_memory_is_what_the_tiles_declare() {
    let Some(all) = resources("k2_transpose") else { return };
    for (function, layout) in [("transpose_tile32", TileLayout::Square), ("transpose_tile32_padded", TileLayout::Padded)] {
        for arch in ["sm_80", "sm_90"] {
            let r = all
                .iter()
                .find(|r| r.function == function && r.arch == arch)
                .unwrap_or_else(|| panic!("ptxas reported nothing for {function} on {arch}"));
            assert_eq!(r.shared_bytes as u64, layout.shared_bytes(TILE), "{function} on {arch}");
            assert_eq!((r.spill_store_bytes, r.spill_load_bytes), (0, 0), "{function} spills on {arch}");
            assert_eq!((r.local_bytes, r.stack_frame_bytes), (0, 0), "{function} uses local memory on {arch}");
        }
    }
    // The chapter's figures, stated once more in bytes.
    assert_eq!(TileLayout::Square.shared_bytes(TILE), 4096);
    assert_eq!(TileLayout::Padded.shared_bytes(TILE), 4224);
}

#[test]
fn the_kernel_tile_is_the_simulators_tile() {
    let source = kernels::find("k2_transpose").unwrap().source;
    assert!(source.contains(&format!("#define TILE {TILE}")));
    assert!(source.contains("__shared__ float tile[TILE][TILE];"));
    assert!(source.contains("__shared__ float tile[TILE][TILE + 1];"));
}
