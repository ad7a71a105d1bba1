// Lab exercise K.4 'guard-find-the-bug': this fill writes the marker
// row * 1000 + col into every cell, and it passes the source's 4x10. Find
// the shape where it fails, say why, and fix it. The checker launches it as
// it launches 'guard': blockDim = (32, 8) and gridDim = (ceil(cols / 32),
// ceil(rows / 8)), and watches the memory on both sides of the output.
//
// Check it with: cargo run --release -p k4_boundary_check -- check find_the_bug.cu --exercise guard-find-the-bug
// expect: guard-find-the-bug: out of bounds (only on matrices wider than a block)

extern "C" __global__ void fill_checked(float* __restrict__ out, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && threadIdx.x < cols) {                  // both axes guarded
        out[row * cols + col] = (float)(row * 1000 + col);
    }
}
