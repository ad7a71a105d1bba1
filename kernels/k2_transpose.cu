// Appendix K.2: a tiled transpose that works for any rows x cols.
//
// `in` is rows x cols, row-major; `out` is cols x rows, row-major. Launch
// with blockDim = (TILE, TILE) and gridDim = (ceil(cols / TILE),
// min(ceil(rows / TILE), 65535)): x covers the input's columns, y its rows.
//
// Two kernels share one body and differ only in the shared tile:
//   transpose_tile32         float tile[32][32]  (column reads hit one bank)
//   transpose_tile32_padded  float tile[32][33]  (one spare word per row)
//
// The Rust simulator `k2_transpose::transpose_body` is this body, line for
// line; the comments below name the matching Rust line. Each entry point
// has a Rust twin of the same name and parameters (after the thread and its
// barrier phase), and `k2_transpose::transpose_launch` is the launch above.

// ANCHOR: body
#define TILE 32

template <int STRIDE>
__device__ __forceinline__ void transpose_body(float (&tile)[TILE][STRIDE], float* __restrict__ out,
                                               const float* __restrict__ in, size_t rows, size_t cols) {
    const size_t tx = threadIdx.x;
    const size_t ty = threadIdx.y;
    const size_t tile_rows = (rows + TILE - 1) / TILE;

    // gridDim.y stops at 65535, so a tall matrix sends each block round this
    // loop more than once (t.strided_block_rows(rows)). Every thread of a
    // block takes the same number of rounds, so the barriers are safe.
    for (size_t by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        // Phase 0: each thread copies one input element into the tile, if it
        // owns one. The tile row is the input row, the tile column the input column.
        const size_t in_row = by * TILE + ty;                  // by * w + ty
        const size_t in_col = (size_t)blockIdx.x * TILE + tx;  // t.global_x()
        if (in_row < rows && in_col < cols) {
            tile[ty][tx] = in[in_row * cols + in_col];         // tile.store(ty, tx, ...)
        }

        __syncthreads();                                       // phase 2k -> 2k + 1

        // Phase 1: the block's output tile sits at the swapped block position,
        // checked against the output's own bounds (cols x rows).
        const size_t out_row = (size_t)blockIdx.x * TILE + ty; // block_idx.x * w + ty
        const size_t out_col = by * TILE + tx;                 // by * w + tx
        if (out_row < cols && out_col < rows) {
            out[out_row * rows + out_col] = tile[tx][ty];      // tile.load(tx, ty): a column read
        }

        __syncthreads();                                       // phase 2k + 1 -> 2k + 2: the tile is reused
    }
}
// ANCHOR_END: body

// ANCHOR: entries
// 32 x 32 floats = 4096 bytes. Lane tx of a warp reads word tx * 32 + ty:
// every lane lands in bank ty, a 32-way conflict.
extern "C" __global__ void transpose_tile32(float* __restrict__ out, const float* __restrict__ in,
                                            size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE];
    transpose_body<TILE>(tile, out, in, rows, cols);
}

// 32 x 33 floats = 4224 bytes. Lane tx reads word tx * 33 + ty, in bank
// (tx + ty) mod 32: 32 lanes, 32 banks, no conflict.
extern "C" __global__ void transpose_tile32_padded(float* __restrict__ out, const float* __restrict__ in,
                                                   size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    transpose_body<TILE + 1>(tile, out, in, rows, cols);
}
// ANCHOR_END: entries
