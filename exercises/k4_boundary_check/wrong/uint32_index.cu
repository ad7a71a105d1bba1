// A wrong kernel for the K.4 lab exercise 'guard' (plausible student code).
// Row, column and flat index as 32-bit unsigned ints: they count to 2^32, so
// even --large's public 46341x46341 (2^31 and a little) passes. Past 2^32
// elements the flat index wraps and the end of the matrix lands on its start.
// expect: guard: passes the public battery; fails the hidden battery with --large

extern "C" __global__ void fill_checked(float* __restrict__ out, size_t rows, size_t cols) {
    const unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols) {
        const unsigned i = row * (unsigned)cols + col;
        out[i] = (float)(row * 1000 + col);
    }
}
