// Appendix K.4: a 2D bounds check that guards only one of its two axes.
//
//   fill_checked           writes the marker row*1000+col to every cell of a
//                          rows x cols row-major matrix; both axes guarded.
//   fill_row_only_checked  the same kernel with the column half of the guard
//                          missing. Threads past the last column are not
//                          turned away: they write their own (wrong) marker
//                          into the next row, or past the end of the buffer.
//   add_row_only_checked   element-wise out = a + b with the same missing
//                          half. Its overflow lands on the next row's first
//                          cells, but it reads a and b through the same flat
//                          index, so it writes the value that slot should hold.
//   add_checked            the addition with both axes guarded (the solution
//                          of the lab exercise 'add').
//
// Launch all four with x over columns: gridDim = (ceil(cols / blockDim.x),
// ceil(rows / blockDim.y)). The two buggy kernels write past rows*cols
// elements when cols is not a multiple of blockDim.x; the host simulator gives
// them a padding row to write into so the damage can be counted.
//
// The Rust twins are `fill_checked`, `fill_row_only_checked`,
// `add_row_only_checked` and `add_checked` in
// chapters/k4_boundary_check/src/lib.rs, line for line.

// ANCHOR: kernels
extern "C" __global__ void fill_checked(float* __restrict__ out, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    if (row < rows && col < cols) {                                    // both axes guarded
        out[row * cols + col] = (float)(row * 1000 + col);             // marker(row, col)
    }
}

// ANCHOR: fill_row_only_checked
extern "C" __global__ void fill_row_only_checked(float* __restrict__ out, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    if (row < rows) {                                                  // BUG: row guarded, col free to pass the edge
        out[row * cols + col] = (float)(row * 1000 + col);             // marker(row, col)
    }
}
// ANCHOR_END: fill_row_only_checked

extern "C" __global__ void add_row_only_checked(float* __restrict__ out, const float* __restrict__ a,
                                                const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    if (row < rows) {                                                  // BUG: row guarded, col free to pass the edge
        const size_t i = row * cols + col;                             // one flat index for all three arrays
        out[i] = a[i] + b[i];
    }
}

extern "C" __global__ void add_checked(float* __restrict__ out, const float* __restrict__ a,
                                       const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = row * cols + col;
        out[i] = a[i] + b[i];
    }
}
// ANCHOR_END: kernels
