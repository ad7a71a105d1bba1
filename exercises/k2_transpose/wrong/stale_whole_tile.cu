// A wrong kernel for the K.2 lab exercise 'transpose' (plausible student code).
// A fast path for whole tiles, decided once before the loop over rows of
// tiles: when the block's first tile lies wholly inside the matrix, the
// guards are skipped in every round. That answer is stale by the round that
// reaches the ragged last row of tiles, which is then read and written
// unguarded. The public battery never loops over a whole tile (its one shape
// past gridDim.y's limit is 5 columns wide); a capped gridDim.y loops every block.
// expect: transpose: passes the public battery; fails the hidden battery

#define TILE 32

extern "C" __global__ void transpose_tile32_padded(float* __restrict__ out, const float* __restrict__ in,
                                                   size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    const size_t tx = threadIdx.x;
    const size_t ty = threadIdx.y;
    const size_t bx = blockIdx.x;
    const size_t tile_rows = (rows + TILE - 1) / TILE;
    const bool whole = ((size_t)blockIdx.y + 1) * TILE <= rows && (bx + 1) * TILE <= cols;
    for (size_t by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        const size_t in_row = by * TILE + ty;
        const size_t in_col = bx * TILE + tx;
        if (whole || (in_row < rows && in_col < cols)) {
            tile[ty][tx] = in[in_row * cols + in_col];
        }
        __syncthreads();
        const size_t out_row = bx * TILE + ty;
        const size_t out_col = by * TILE + tx;
        if (whole || (out_row < cols && out_col < rows)) {
            out[out_row * rows + out_col] = tile[tx][ty];
        }
        __syncthreads();
    }
}
