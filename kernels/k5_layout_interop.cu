// Appendix K.5: one element-wise addition, out = a + b, written twice: once
// for row-major buffers and once for column-major ones.
//
//   add_row_major  threadIdx.x walks columns, the contiguous axis of a
//                  row-major matrix. Launch gridDim = (ceil(cols / blockDim.x),
//                  ceil(rows / blockDim.y)).
//   add_col_major  threadIdx.x walks rows, the contiguous axis of a
//                  column-major matrix. Launch gridDim = (ceil(rows / blockDim.x),
//                  ceil(cols / blockDim.y)).
//
// In both, neighbouring lanes of a warp touch neighbouring addresses. The
// rule was never "x means column"; it is "x walks whichever axis has stride 1".
// Both guard both axes (see K.4 for what happens otherwise).
//
//   add_row_major_x_rows  row-major offsets, but threadIdx.x walks rows.
//   add_col_major_x_cols  column-major offsets, but threadIdx.x walks columns.
//                  The two mismatched pairings of the chapter's warp table:
//                  still correct, but a warp's lanes sit a whole row (or
//                  column) apart. They exist so the GPU section can time all
//                  four pairings side by side; launch each with gridDim.x
//                  covering the axis its x walks.
//
// The Rust twins of all four kernels, under the same names, are in
// chapters/k5_layout_interop/src/lib.rs, line for line; `launch_plan` in the
// same file gives each kernel's launch to the simulator and the GPU alike.

// ANCHOR: kernels
extern "C" __global__ void add_row_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks columns
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = row * cols + col;                             // row-major offset
        out[i] = a[i] + b[i];
    }
}

extern "C" __global__ void add_col_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks rows
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = col * rows + row;                             // column-major offset
        out[i] = a[i] + b[i];
    }
}
// ANCHOR_END: kernels

// ANCHOR: mismatched
extern "C" __global__ void add_row_major_x_rows(float* __restrict__ out, const float* __restrict__ a,
                                                const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks rows
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = row * cols + col;                             // row-major offset: lanes cols apart
        out[i] = a[i] + b[i];
    }
}

extern "C" __global__ void add_col_major_x_cols(float* __restrict__ out, const float* __restrict__ a,
                                                const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks columns
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = col * rows + row;                             // column-major offset: lanes rows apart
        out[i] = a[i] + b[i];
    }
}
// ANCHOR_END: mismatched
