//! What the K.3 page claims about the compiled copy kernels, read from
//! ptxas's own resource report for both embedded architectures.

use ktrav_gpu::kernels::{check_compiled, resources_of};

#[test]
fn both_copies_compile_lean() {
    let functions = ["copy_x_to_col", "copy_x_to_row"];
    let Some(all) = check_compiled("k3_grid_mapping", &functions) else { return };
    for function in functions {
        for arch in ["sm_80", "sm_90"] {
            assert_eq!(resources_of(&all, function, arch).shared_bytes, 0, "{function} on {arch}");
        }
    }
}

#[test]
fn the_fast_versions_compile_lean() {
    ktrav_gpu::kernels::check_versions("k3_grid_mapping", &k3_grid_mapping::VERSIONS);
}
