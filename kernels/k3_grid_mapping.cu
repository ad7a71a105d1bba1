// Appendix K.3: the same 2D copy under the two ways of mapping a grid onto
// a rows x cols row-major matrix.
//
//   copy_x_to_col  threadIdx.x walks columns: launch gridDim = (ceil(cols / blockDim.x),
//                  ceil(rows / blockDim.y)). Neighbouring lanes touch neighbouring
//                  addresses.
//   copy_x_to_row  threadIdx.x walks rows: launch gridDim = (ceil(rows / blockDim.x),
//                  ceil(cols / blockDim.y)). Neighbouring lanes are `cols` elements apart.
//
// Both cover every element exactly once; only the second wastes bandwidth.
// Each kernel has a Rust twin of the same name and parameters
// (`k3_grid_mapping::copy_x_to_col`, `copy_x_to_row`); the index math below
// is `k3_grid_mapping::Mapping::element`, line for line.

// ANCHOR: kernels
extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = row * cols + col;                             // row-major offset
        dst[i] = src[i];
    }
}

extern "C" __global__ void copy_x_to_row(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {
        const size_t i = row * cols + col;
        dst[i] = src[i];
    }
}
// ANCHOR_END: kernels
