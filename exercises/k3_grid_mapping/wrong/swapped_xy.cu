// A wrong kernel for the K.3 lab exercise 'copy' (plausible student code).
// threadIdx.x walks rows, though the launch spreads x over the columns.
// expect: copy: unwritten

extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        const size_t i = row * cols + col;
        dst[i] = src[i];
    }
}
