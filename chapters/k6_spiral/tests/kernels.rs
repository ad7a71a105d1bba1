//! What the K.6 page claims about the compiled spiral kernels, read from
//! ptxas's own resource report for both embedded architectures.

#[test]
fn kernels_are_embedded() {
    ktrav_gpu::kernels::check_compiled("k6_spiral", &["spiral_scatter", "spiral_gather"]);
}

#[test]
fn the_fast_versions_compile_lean_and_declare_their_tiles() {
    ktrav_gpu::kernels::check_versions("k6_spiral", &k6_spiral::VERSIONS);
}
