// Lab exercise K.2 'transpose': a tiled transpose with a padded tile, for any shape.
//
// `in` is rows x cols, row-major; write its transpose to `out` (cols x rows,
// row-major). The checker launches blockDim = (32, 32) and gridDim =
// (ceil(cols / 32), min(ceil(rows / 32), 65535)): x covers the input's
// columns, y its rows, and a tall matrix needs more rows of tiles than
// gridDim.y can hold. Stage each 32 x 32 tile in shared memory so that both
// the read of `in` and the write of `out` are coalesced.
//
// Check it with: cargo run --release -p k2_transpose -- check transpose.cu
// expect: transpose: unwritten (until the TODO is done)

#define TILE 32

extern "C" __global__ void transpose_tile32_padded(float* __restrict__ out, const float* __restrict__ in,
                                                   size_t rows, size_t cols) {
    __shared__ float tile[TILE][TILE + 1];  // one spare word per row: no bank conflicts
    // TODO: for each row of tiles this block owns (blockIdx.y, then every
    // gridDim.y further), copy the in-bounds input elements into `tile`,
    // wait for the whole block, write the tile's transpose to the swapped
    // block position in `out` (checked against out's own bounds), and wait
    // again before the tile is reused.
    (void)tile; (void)out; (void)in; (void)rows; (void)cols;
}
