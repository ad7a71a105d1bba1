//! What the K.4 page claims about its kernel file: the four kernels
//! compile lean for both embedded architectures, read from ptxas's own
//! resource report, and the one-axis guard's bug is in the `.cu` too.

#[test]
fn the_kernel_file_holds_all_four_kernels() {
    ktrav_gpu::kernels::check_compiled(
        "k4_boundary_check",
        &["fill_checked", "fill_row_only_checked", "add_row_only_checked", "add_checked"],
    );
    // The bug is in the .cu too, not only in its Rust twin.
    let k = ktrav_gpu::kernels::find("k4_boundary_check").unwrap();
    assert!(k.source.contains("if (row < rows) {"));
}
