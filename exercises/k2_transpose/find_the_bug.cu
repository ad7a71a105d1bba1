// Lab exercise K.2 'find-the-bug': this transpose passes every one of the
// source's shapes, and the ragged ones too. Find the shape where it fails,
// say why, and fix it. (Hint: count the blocks the checker can launch.)
//
// Check it with: cargo run --release -p k2_transpose -- check find_the_bug.cu --exercise find-the-bug
// expect: find-the-bug: unwritten (only on the shape past gridDim.y's limit)
// expect: transpose: unwritten (only on the shape past gridDim.y's limit)

#define TILE 32

extern "C" __global__ void transpose_tile32_padded(float* __restrict__ out, const float* __restrict__ in,
                                                   size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    const size_t tx = threadIdx.x;
    const size_t ty = threadIdx.y;
    const size_t tile_rows = (rows + TILE - 1) / TILE;
    { const size_t by = blockIdx.y;  // one row of tiles per block
        const size_t in_row = by * TILE + ty;
        const size_t in_col = (size_t)blockIdx.x * TILE + tx;
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
