//! What the K.2 page claims about the compiled kernels, read from ptxas's
//! own resource report (`-Xptxas -v`) for both embedded architectures.

use k2_transpose::{TileLayout, TILE};
use ktrav_gpu::kernels::{self, check_compiled, resources_of};

#[test]
fn shared_memory_is_what_the_tiles_declare() {
    let layouts = [TileLayout::Square, TileLayout::Padded];
    let Some(all) = check_compiled("k2_transpose", &layouts.map(TileLayout::kernel)) else { return };
    for layout in layouts {
        let function = layout.kernel();
        for arch in ["sm_80", "sm_90"] {
            let r = resources_of(&all, function, arch);
            assert_eq!(r.shared_bytes as u64, layout.shared_bytes(TILE), "{function} on {arch}");
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

#[test]
fn the_fast_versions_compile_lean_and_declare_their_tiles() {
    ktrav_gpu::kernels::check_versions("k2_transpose", &k2_transpose::VERSIONS);
}
