// A wrong kernel for the K.2 lab exercise 'transpose' (plausible student code).
// The input row is taken from threadIdx.x and the column from threadIdx.y.
// expect: transpose: wrong

#define TILE 32

extern "C" __global__ void transpose_tile32_padded(float* __restrict__ out, const float* __restrict__ in,
                                                   size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    const size_t tx = threadIdx.x;
    const size_t ty = threadIdx.y;
    const size_t tile_rows = (rows + TILE - 1) / TILE;
    for (size_t by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        const size_t in_row = by * TILE + tx;
        const size_t in_col = (size_t)blockIdx.x * TILE + ty;
        if (in_row < rows && in_col < cols) {
            tile[ty][tx] = in[in_row * cols + in_col];
        }
        __syncthreads();
        const size_t out_row = (size_t)blockIdx.x * TILE + ty;
        const size_t out_col = by * TILE + tx;
        if (out_row < cols && out_col < rows) {
            out[out_row * rows + out_col] = tile[tx][ty];
        }
        __syncthreads();
    }
}
