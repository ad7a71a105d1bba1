// A wrong kernel for the K.3 lab exercise 'copy' (plausible student code).
// `<=` on the column edge: one element past the end of the matrix.
// expect: copy: out of bounds

extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col <= cols) {
        const size_t i = row * cols + col;
        dst[i] = src[i];
    }
}
