// A wrong kernel for the K.4 lab exercise 'guard' (plausible student code).
// The chapter's fill_row_only_checked: the column half of the guard is missing.
// expect: guard: out of bounds

extern "C" __global__ void fill_checked(float* __restrict__ out, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        out[row * cols + col] = (float)(row * 1000 + col);
    }
}
