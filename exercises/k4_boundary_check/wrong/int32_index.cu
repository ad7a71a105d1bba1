// A wrong kernel for the K.4 lab exercise 'guard' (plausible student code).
// 32-bit row and column: right on every default shape, overflows past 2^31 elements.
// expect: guard: passes without --large; fails with --large

extern "C" __global__ void fill_checked(float* __restrict__ out, size_t rows, size_t cols) {
    const int row = (int)blockIdx.y * blockDim.y + threadIdx.y;
    const int col = (int)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < (int)rows && col < (int)cols) {
        out[row * (int)cols + col] = (float)(row * 1000 + col);
    }
}
