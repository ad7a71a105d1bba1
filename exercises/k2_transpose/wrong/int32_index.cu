// A wrong kernel for the K.2 lab exercise 'transpose' (plausible student code).
// 32-bit indices: right on every default shape, overflows past 2^31 elements.
// expect: transpose: passes without --large; fails with --large

#define TILE 32

extern "C" __global__ void transpose_tile32_padded(float* __restrict__ out, const float* __restrict__ in,
                                                   size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    const size_t tx = threadIdx.x;
    const size_t ty = threadIdx.y;
    const size_t tile_rows = (rows + TILE - 1) / TILE;
    for (int by = blockIdx.y; by < (int)tile_rows; by += gridDim.y) {
        const int in_row = by * TILE + ty;
        const int in_col = (int)blockIdx.x * TILE + tx;
        if (in_row < (int)rows && in_col < (int)cols) {
            tile[ty][tx] = in[in_row * (int)cols + in_col];
        }
        __syncthreads();
        const int out_row = (int)blockIdx.x * TILE + ty;
        const int out_col = by * TILE + tx;
        if (out_row < (int)cols && out_col < (int)rows) {
            out[out_row * (int)rows + out_col] = tile[tx][ty];
        }
        __syncthreads();
    }
}
