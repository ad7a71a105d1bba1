// A wrong kernel for the K.3 lab exercise 'copy' (plausible student code).
// Guards the row only: threads past the last column copy on into the next
// row, and past the end of the last one.
// expect: copy: out of bounds

extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const size_t i = row * cols + col;
        dst[i] = src[i];
    }
}
