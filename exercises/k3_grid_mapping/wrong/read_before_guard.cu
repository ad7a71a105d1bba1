// A wrong kernel for the K.3 lab exercise 'copy' (plausible student code).
// The element is loaded before the guard: threads past the last row or
// column read past the end of `src`. What they read is never stored, so
// the output is right and no guard word is touched; on the public battery
// only memcheck, with every buffer its exact size, sees the reads. (On the
// hidden battery's widest shapes the rows past the last reach much farther
// past the input, and may fault.) (The load goes through a
// volatile pointer, as a value polled from memory would: a plain load whose
// value is used only inside the guard may be moved inside it by the
// compiler, and then no stray read happens at all.)
// expect: copy: passes without --sanitize; fails with --sanitize

extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float v = ((const volatile float*)src)[row * cols + col];
    if (row < rows && col < cols) {
        dst[row * cols + col] = v;
    }
}
