// A wrong kernel for the K.5 lab exercise 'col-major-add' (plausible student code).
// The row-major habit: x taken as the column, though the launch spreads x over the rows.
// expect: col-major-add: unwritten

extern "C" __global__ void add_col_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols) {
        const size_t i = col * rows + row;
        out[i] = a[i] + b[i];
    }
}
