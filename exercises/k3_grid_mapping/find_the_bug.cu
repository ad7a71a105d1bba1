// Lab exercise K.3 'copy-find-the-bug': this copy passes every one of the
// source's four cases, and the ragged 97x131 too. Find the shape where it
// fails, say why, and fix it. The checker launches it as it launches 'copy':
// blockDim = (32, 8) and gridDim = (ceil(cols / 32), ceil(rows / 8)).
//
// Check it with: cargo run --release -p k3_grid_mapping -- check find_the_bug.cu --exercise copy-find-the-bug
// expect: copy-find-the-bug: unwritten (only on matrices with more rows than the grid has x threads)

extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    // x walks the longer axis, so the long side gets the grid's large x
    // dimension and gridDim.y only ever counts the short side.
    const bool tall = rows > cols;
    const size_t row = tall ? x : y;
    const size_t col = tall ? y : x;
    if (row < rows && col < cols) {
        const size_t i = row * cols + col;
        dst[i] = src[i];
    }
}
