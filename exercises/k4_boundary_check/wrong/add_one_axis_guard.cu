// A wrong kernel for the K.4 lab exercise 'add' (plausible student code).
// The chapter's add_row_only_checked: the column half of the guard is missing.
// Its strays inside the matrix store the value their slot should hold; the
// last row's strays store past the end of the output.
// expect: add: out of bounds

extern "C" __global__ void add_checked(float* __restrict__ out, const float* __restrict__ a,
                                       const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const size_t i = row * cols + col;
        out[i] = a[i] + b[i];
    }
}
