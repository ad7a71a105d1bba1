// Lab exercise K.5 'col-major-find-the-bug': out = a + b, element by
// element, for rows x cols matrices stored column-major, x walking the rows.
// It passes the source's 4x6 and the warp table's 64x96. Find the shape where
// it fails, say why, and fix it. The checker launches it as it launches
// 'col-major-add': blockDim = (32, 8) and gridDim = (ceil(rows / 32),
// ceil(cols / 8)), and watches the memory on both sides of the output.
//
// Check it with: cargo run --release -p k5_layout_interop -- check find_the_bug.cu --exercise col-major-find-the-bug
// expect: col-major-find-the-bug: out of bounds (only on matrices taller than wide)

extern "C" __global__ void add_col_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // x walks the rows
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    // A block wholly inside the matrix needs no guard; only edge blocks test.
    const bool inside = ((size_t)blockIdx.x + 1) * blockDim.x <= cols && ((size_t)blockIdx.y + 1) * blockDim.y <= rows;
    if (inside || (row < rows && col < cols)) {
        const size_t i = col * rows + row;                             // column-major offset
        out[i] = a[i] + b[i];
    }
}
