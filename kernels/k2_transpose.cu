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

    // gridDim.y stops at 65535, so when there are more rows of tiles than
    // that, a block goes round this loop more than once
    // (t.strided_block_rows(rows)). Every thread of a
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

        // Phase 1: block (bx, by) writes output tile (by, bx); the output is
        // cols x rows, so out_row must stay below cols and out_col below rows.
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

// ANCHOR: ladder
// ---- How fast can it go ----
// Faster versions of the same transpose (in: rows x cols, out: cols x rows,
// both row-major, any shape). v1 and v2 are launched with blockDim = (32, 8),
// v3 with (16, 16), and each with gridDim = (ceil(cols / T), min(ceil(rows / T),
// 65535)), T the version's tile width; a block walks down its tile column in
// steps of gridDim.y, so tall matrices need no more than 65535 blocks in y.
// Indices are 64-bit.

// v1: 32 x 8 threads each moving 4 rows of the padded 32 x 33 tile: a quarter of the threads, four independent loads per thread.
extern "C" __global__ void __launch_bounds__(256) transpose_v1_32x8(float* __restrict__ out, const float* __restrict__ in,
                                                                   size_t rows, size_t cols) {
    __shared__ float tile[32][33];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const size_t tile_rows = (rows + 31) / 32;
    const size_t c0 = (size_t)blockIdx.x * 32;
    for (size_t by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        const size_t r0 = by * 32;
        const size_t col = c0 + tx;
#pragma unroll
        for (unsigned j = 0; j < 32; j += 8) {
            const size_t row = r0 + ty + j;
            if (row < rows && col < cols) {
                tile[ty + j][tx] = in[row * cols + col];
            }
        }
        __syncthreads();
        const size_t out_col = r0 + tx;
#pragma unroll
        for (unsigned j = 0; j < 32; j += 8) {
            const size_t out_row = c0 + ty + j;
            if (out_row < cols && out_col < rows) {
                out[out_row * rows + out_col] = tile[tx][ty + j];
            }
        }
        __syncthreads();
    }
}

// v2: 64 x 64 tile of 2 x 2 blocks, float2 loads (8 independent ones per thread): each thread swaps its four 2 x 2 blocks in registers.
// Its float2 stores compile to pairs of 4-byte stores (bench/results/ptx_k2_stores.txt).
// Shared t[h][q][p] holds {in[r0+2p][c0+2q+h], in[r0+2p+1][c0+2q+h]}, rows of 33 float2: 16 896 bytes, no bank conflict.
// The float2 path needs even rows and cols and 8-byte aligned buffers; other shapes, and edge tiles, take guarded scalar loads.
extern "C" __global__ void __launch_bounds__(256) transpose_v2_64x64_float2(float* __restrict__ out, const float* __restrict__ in,
                                                                           size_t rows, size_t cols) {
    __shared__ float2 t[2][32][33];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const size_t tile_rows = (rows + 63) / 64;
    const size_t c0 = (size_t)blockIdx.x * 64;
    const bool vec = ((rows | cols) & 1) == 0 && (((size_t)in | (size_t)out) & 7) == 0;
    for (size_t by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        const size_t r0 = by * 64;
        const bool full = vec && r0 + 64 <= rows && c0 + 64 <= cols;
        const size_t col = c0 + 2 * tx;
        float2 a[4], b[4];
#pragma unroll
        for (unsigned j = 0; j < 4; ++j) {
            const size_t row = r0 + 2 * (ty + 8 * j);
            if (full) {
                a[j] = *reinterpret_cast<const float2*>(in + row * cols + col);
                b[j] = *reinterpret_cast<const float2*>(in + (row + 1) * cols + col);
            } else {
                a[j] = make_float2(0.f, 0.f);
                b[j] = make_float2(0.f, 0.f);
                if (row < rows && col < cols) a[j].x = in[row * cols + col];
                if (row < rows && col + 1 < cols) a[j].y = in[row * cols + col + 1];
                if (row + 1 < rows && col < cols) b[j].x = in[(row + 1) * cols + col];
                if (row + 1 < rows && col + 1 < cols) b[j].y = in[(row + 1) * cols + col + 1];
            }
        }
#pragma unroll
        for (unsigned j = 0; j < 4; ++j) {
            t[0][tx][ty + 8 * j] = make_float2(a[j].x, b[j].x);
            t[1][tx][ty + 8 * j] = make_float2(a[j].y, b[j].y);
        }
        __syncthreads();
        const size_t out_col = r0 + 2 * tx;
#pragma unroll
        for (unsigned j = 0; j < 8; ++j) {
            const unsigned o = ty + 8 * j;             // output row within the tile: input column c0 + o
            const size_t out_row = c0 + o;
            const float2 v = t[o & 1][o >> 1][tx];
            if (full) {
                *reinterpret_cast<float2*>(out + out_row * rows + out_col) = v;
            } else if (out_row < cols) {
                if (out_col < rows) out[out_row * rows + out_col] = v.x;
                if (out_col + 1 < rows) out[out_row * rows + out_col + 1] = v.y;
            }
        }
        __syncthreads();
    }
}

// v3: 64 x 64 tile of 4 x 4 blocks, float4 loads: half of v2's load instructions for the same bytes in flight per thread.
// Its float4 stores compile to four 4-byte stores each (bench/results/ptx_k2_stores.txt).
// Launch blockDim = (16, 16) (not 32 x 8); shared t[h][q][p] holds column 4q+h of row block p, rows of 17 float4: 17 408 bytes.
// The float4 path needs rows and cols divisible by 4 and 16-byte aligned buffers; other shapes and edge tiles go scalar.
extern "C" __global__ void __launch_bounds__(256) transpose_v3_64x64_float4(float* __restrict__ out, const float* __restrict__ in,
                                                                           size_t rows, size_t cols) {
    __shared__ float4 t[4][16][17];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const size_t tile_rows = (rows + 63) / 64;
    const size_t c0 = (size_t)blockIdx.x * 64;
    const bool vec = ((rows | cols) & 3) == 0 && (((size_t)in | (size_t)out) & 15) == 0;
    for (size_t by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        const size_t r0 = by * 64;
        const bool full = vec && r0 + 64 <= rows && c0 + 64 <= cols;
        const size_t col = c0 + 4 * tx;
        const size_t row = r0 + 4 * ty;
        float4 v[4];
#pragma unroll
        for (unsigned i = 0; i < 4; ++i) {
            if (full) {
                v[i] = *reinterpret_cast<const float4*>(in + (row + i) * cols + col);
            } else {
                const bool ok = row + i < rows;
                const float* p = in + (row + i) * cols + col;
                v[i].x = ok && col < cols ? p[0] : 0.f;
                v[i].y = ok && col + 1 < cols ? p[1] : 0.f;
                v[i].z = ok && col + 2 < cols ? p[2] : 0.f;
                v[i].w = ok && col + 3 < cols ? p[3] : 0.f;
            }
        }
        t[0][tx][ty] = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
        t[1][tx][ty] = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
        t[2][tx][ty] = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
        t[3][tx][ty] = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
        __syncthreads();
        const size_t out_col = r0 + 4 * tx;
#pragma unroll
        for (unsigned j = 0; j < 4; ++j) {
            const unsigned o = ty + 16 * j;            // output row within the tile: input column c0 + o
            const size_t out_row = c0 + o;
            const float4 w = t[o & 3][o >> 2][tx];
            if (full) {
                *reinterpret_cast<float4*>(out + out_row * rows + out_col) = w;
            } else if (out_row < cols) {
                float* p = out + out_row * rows + out_col;
                if (out_col < rows) p[0] = w.x;
                if (out_col + 1 < rows) p[1] = w.y;
                if (out_col + 2 < rows) p[2] = w.z;
                if (out_col + 3 < rows) p[3] = w.w;
            }
        }
        __syncthreads();
    }
}
// ANCHOR_END: ladder
