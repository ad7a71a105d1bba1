//! What the K.5 page claims about the compiled addition kernels, read from
//! ptxas's own resource report for both embedded architectures.

use k5_layout_interop::{PAIRINGS, VERSIONS};

#[test]
fn the_kernel_file_holds_all_four_kernels() {
    let names: Vec<&str> = PAIRINGS.iter().map(|p| p.kernel_name()).collect();
    ktrav_gpu::kernels::check_compiled("k5_layout_interop", &names);
    assert_eq!(names, ["add_row_major", "add_col_major", "add_row_major_x_rows", "add_col_major_x_cols"]);
}

#[test]
fn the_fast_versions_compile_lean() {
    ktrav_gpu::kernels::check_versions("k5_layout_interop", &VERSIONS);
}
