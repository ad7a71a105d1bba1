//! What the K.7 page claims about the compiled lattice kernels, read from
//! ptxas's own resource report for both embedded architectures.

#[test]
fn kernels_are_embedded() {
    ktrav_gpu::kernels::check_compiled("k7_diagonal", &["lattice_wavefront", "lattice_single_launch", "lattice_tiled"]);
}

#[test]
fn the_fast_versions_compile_lean() {
    ktrav_gpu::kernels::check_versions("k7_diagonal", &k7_diagonal::VERSIONS);
}
