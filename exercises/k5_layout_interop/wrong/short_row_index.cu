// A wrong kernel for the K.5 lab exercise 'col-major-add' (plausible student code).
// The row kept in an unsigned short, which holds rows up to 65535: enough for
// every column of the public battery, --large's 46341 rows included. Past
// 65535 rows it wraps: the threads of rows 65536 and on rewrite the top of
// their column, and the rest of it stays unwritten.
// expect: col-major-add: passes the public battery; fails the hidden battery as unwritten

extern "C" __global__ void add_col_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    const unsigned short row = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        const size_t i = col * rows + row;
        out[i] = a[i] + b[i];
    }
}
