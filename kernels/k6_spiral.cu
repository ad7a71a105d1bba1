// Appendix K.6: spiral order as two independent-thread kernels.
//
// Every function here has a Rust twin in chapters/k6_spiral/src/lib.rs,
// written to be read side by side; the comments name the twin. All index
// arithmetic is 64-bit: rows * cols may exceed 2^31 even though each
// dimension fits in an int.

// ring_of: distance from (row, col) to the nearest edge.
__device__ __forceinline__ long long ring_of(long long row, long long col, long long rows, long long cols) {
    long long k = row < col ? row : col;
    long long to_bottom = rows - 1 - row;
    long long to_right = cols - 1 - col;
    k = to_bottom < k ? to_bottom : k;
    return to_right < k ? to_right : k;
}

// ring_start: rows*cols minus the (rows-2k) x (cols-2k) core left after k peels.
__device__ __forceinline__ long long ring_start(long long k, long long rows, long long cols) {
    return rows * cols - (rows - 2 * k) * (cols - 2 * k);
}

// last_ring: a matrix has ceil(min(rows, cols) / 2) rings.
__device__ __forceinline__ long long last_ring(long long rows, long long cols) {
    return ((rows < cols ? rows : cols) - 1) / 2;
}

// ANCHOR: rank_cu
// spiral_rank: ring start plus the offset along the ring's side.
__device__ long long spiral_rank(long long row, long long col, long long rows, long long cols) {
    long long k = ring_of(row, col, rows, cols);
    long long start = ring_start(k, rows, cols);
    long long top = k, left = k;
    long long bottom = rows - 1 - k, right = cols - 1 - k;
    long long width = right - left + 1, height = bottom - top + 1;
    // A ring that is a lone row is all top side; a lone column is its top
    // cell, then right side. Testing the sides in walk order handles both.
    if (row == top) {
        return start + (col - left);                                   // top side: left to right
    } else if (col == right) {
        return start + (width - 1) + (row - top);                      // right side: downwards
    } else if (row == bottom) {
        return start + (width - 1) + (height - 1) + (right - col);     // bottom side: right to left
    } else {
        return start + 2 * (width - 1) + (height - 1) + (bottom - row); // left side: upwards
    }
}
// ANCHOR_END: rank_cu

// ring_containing: the smaller root of ring_start(k) = rank, in the
// cancellation-free form rank / (s + sqrt(s^2 - 4 rank)); double precision
// gives the estimate, two integer loops make it exact.
__device__ long long ring_containing(long long rank, long long rows, long long cols) {
    unsigned long long s = (unsigned long long)(rows + cols);
    unsigned long long disc = s * s - 4ull * (unsigned long long)rank;   // >= (rows-cols)^2
    long long estimate = (long long)((double)rank / ((double)s + sqrt((double)disc)));
    long long last = last_ring(rows, cols);
    long long k = estimate < last ? estimate : last;
    while (k > 0 && ring_start(k, rows, cols) > rank) {
        --k;                                                            // estimate one too high
    }
    while (k < last && ring_start(k + 1, rows, cols) <= rank) {
        ++k;                                                            // estimate one too low
    }
    return k;
}

// spiral_position: the inverse closed form, rank -> (row, col).
__device__ void spiral_position(long long rank, long long rows, long long cols, long long* row, long long* col) {
    long long k = ring_containing(rank, rows, cols);
    long long offset = rank - ring_start(k, rows, cols);
    long long top = k, left = k;
    long long bottom = rows - 1 - k, right = cols - 1 - k;
    long long width = right - left + 1, height = bottom - top + 1;
    // The same four sides, located by how far along the ring `offset` is.
    if (offset < width) {
        *row = top;                                                     // top side (all of a lone row)
        *col = left + offset;
    } else if (offset < width + height - 1) {
        *row = top + offset - (width - 1);                              // right side (a lone column below its top cell)
        *col = right;
    } else if (offset < 2 * width + height - 2) {
        *row = bottom;                                                  // bottom side
        *col = right - (offset - (width - 1) - (height - 1));
    } else {
        *row = bottom - (offset - 2 * (width - 1) - (height - 1));      // left side
        *col = left;
    }
}

// ANCHOR: scatter_cu
// scatter_indices: one thread per INPUT element. The read in[row * cols + col]
// is coalesced; the write lands at out[rank]. False for an idle thread.
__device__ __forceinline__ bool scatter_indices(long long rows, long long cols, long long* from, long long* to) {
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;   // t.global_y()
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;   // t.global_x()
    if (row >= rows || col >= cols) {
        return false;                                                   // boundary check on both axes
    }
    *from = row * cols + col;
    *to = spiral_rank(row, col, rows, cols);
    return true;
}

extern "C" __global__ void spiral_scatter(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    long long from, to;
    if (scatter_indices(rows, cols, &from, &to)) {
        out[to] = in[from];
    }
}
// ANCHOR_END: scatter_cu

// ANCHOR: gather_cu
// gather_indices: one thread per OUTPUT slot, the output laid out as the
// same rows x cols grid. The write out[row * cols + col] is coalesced; the
// read comes from wherever the inverse says. False for an idle thread.
__device__ __forceinline__ bool gather_indices(long long rows, long long cols, long long* from, long long* to) {
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows || col >= cols) {
        return false;
    }
    *to = row * cols + col;
    long long src_row, src_col;
    spiral_position(*to, rows, cols, &src_row, &src_col);
    *from = src_row * cols + src_col;
    return true;
}

extern "C" __global__ void spiral_gather(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    long long from, to;
    if (gather_indices(rows, cols, &from, &to)) {
        out[to] = in[from];
    }
}
// ANCHOR_END: gather_cu

// ANCHOR: ladder
// ---- How fast can it go ----
// The spiral reorder out[spiral_rank(row, col)] = in[row * cols + col] (what
// spiral_scatter and spiral_gather both produce), with reads AND writes
// coalesced. A ring's top and bottom sides are input rows, already contiguous
// in both arrays; its left and right sides are input columns, contiguous in
// the output but strided in the input. So each block stages a square tile in
// shared memory, padded by one float a row, and writes a side that runs down
// a column from the tile read column-wise, as the K.2 transpose does: a 32 x 32
// tile (32 x 33 floats, 4224 bytes) in v1 and v2, a 64 x 64 tile (64 x 65
// floats, 16 640 bytes) in v3 and v4. Every version takes (out, in, rows,
// cols) with size_t rows and cols and blockDim = (32, 8); with T its tile
// width, gridDim = (ceil(cols / T), min(ceil(rows / T), 65535)), and a block
// walks down its tile column in steps of gridDim.y. Ranks are 64-bit.

// spiral_side_rank: spiral_rank, also saying whether (row, col) lies on a top or
// bottom side (true) or on a left or right side (false); same side order.
__device__ __forceinline__ long long spiral_side_rank(long long row, long long col, long long rows, long long cols,
                                                      bool* horizontal) {
    long long k = ring_of(row, col, rows, cols);
    long long start = ring_start(k, rows, cols);
    long long bottom = rows - 1 - k, right = cols - 1 - k;
    long long width = right - k + 1, height = bottom - k + 1;
    if (row == k) {
        *horizontal = true;
        return start + (col - k);
    } else if (col == right) {
        *horizontal = false;
        return start + (width - 1) + (row - k);
    } else if (row == bottom) {
        *horizontal = true;
        return start + (width - 1) + (height - 1) + (right - col);
    } else {
        *horizontal = false;
        return start + 2 * (width - 1) + (height - 1) + (bottom - row);
    }
}

// spiral_tile_mixed: one W x W tile (W = 32 or 64), any mix of sides. Every
// element goes through shared memory; pass A writes the elements on top/bottom
// sides reading the tile row-wise, pass B the left/right ones reading it
// column-wise, so each pass's ranks run along the warp.
template <int W>
__device__ __forceinline__ void spiral_tile_mixed(float (&tile)[W][W + 1], float* __restrict__ out, const float* __restrict__ in,
                                                  long long rows, long long cols, long long r0, long long c0) {
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (unsigned jr = 0; jr < W / 8; ++jr) {
#pragma unroll
        for (unsigned jc = 0; jc < W / 32; ++jc) {
            const long long row = r0 + ty + 8 * jr, col = c0 + tx + 32 * jc;
            if (row < rows && col < cols) tile[ty + 8 * jr][tx + 32 * jc] = in[row * cols + col];
        }
    }
    __syncthreads();
#pragma unroll 1
    for (unsigned e = 0; e < (W / 8) * (W / 32); ++e) {
        const unsigned jr = e / (W / 32), jc = e % (W / 32);
        const long long row = r0 + ty + 8 * jr, col = c0 + tx + 32 * jc;
        if (row < rows && col < cols) {
            bool horizontal;
            const long long rank = spiral_side_rank(row, col, rows, cols, &horizontal);
            if (horizontal) out[rank] = tile[ty + 8 * jr][tx + 32 * jc];
        }
    }
#pragma unroll 1
    for (unsigned e = 0; e < (W / 8) * (W / 32); ++e) {
        const unsigned jr = e / (W / 32), jc = e % (W / 32);
        const long long row = r0 + tx + 32 * jc, col = c0 + ty + 8 * jr;
        if (row < rows && col < cols) {
            bool horizontal;
            const long long rank = spiral_side_rank(row, col, rows, cols, &horizontal);
            if (!horizontal) out[rank] = tile[tx + 32 * jc][ty + 8 * jr];
        }
    }
    __syncthreads();
}

// v1: stage each 32 x 32 tile in shared memory, write top/bottom elements row-wise and left/right ones column-wise: every write a contiguous run.
extern "C" __global__ void __launch_bounds__(256) spiral_v1_tiled(float* __restrict__ out, const float* __restrict__ in,
                                                                 size_t rows, size_t cols) {
    __shared__ float tile[32][33];
    const long long R = (long long)rows, C = (long long)cols;
    const long long tile_rows = (R + 31) / 32;
    const long long c0 = (long long)blockIdx.x * 32;
    for (long long by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        spiral_tile_mixed<32>(tile, out, in, R, C, by * 32, c0);
    }
}

// v2: v1 plus a per-tile test: a tile wholly inside one side's triangle knows its side, and an element's ring follows from its row (or column)
// alone, so its rank comes from that ring's start and its index, with no ring_of and no side test per element.
// Only tiles crossing a diagonal or the centre (about 2 in each row of tiles: 1.6% of them at 4096^2) keep v1's per-element closed form.
extern "C" __global__ void __launch_bounds__(256) spiral_v2_tile_classes(float* __restrict__ out, const float* __restrict__ in,
                                                                        size_t rows, size_t cols) {
    __shared__ float tile[32][33];
    const long long R = (long long)rows, C = (long long)cols;
    const long long tile_rows = (R + 31) / 32;
    const long long c0 = (long long)blockIdx.x * 32;
    const long long c1 = (c0 + 31 < C ? c0 + 31 : C - 1);     // last column of the tile
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    for (long long by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        const long long r0 = by * 32;
        const long long r1 = (r0 + 31 < R ? r0 + 31 : R - 1);  // last row of the tile
        // Which side owns every element (same tie order as spiral_rank: top, right, bottom, left)?
        const bool top = r1 <= c0 && r1 <= C - 1 - c1 && r1 <= R - 1 - r1;
        const bool right = !top && C - 1 - c0 < r0 && C - 1 - c0 <= c0 && C - 1 - c0 <= R - 1 - r1;
        const bool bottom = !top && !right && R - 1 - r0 < r0 && R - 1 - r0 <= c0 && R - 1 - r0 < C - 1 - c1;
        const bool left = !top && !right && !bottom && c1 < r0 && c1 < R - 1 - r1 && c1 < C - 1 - c1;
        if (top || bottom) {
            // Row r of the tile is one run of its ring's top (rank = base + col) or bottom (rank = base - col) side.
            float v[4];
            const long long col = c0 + tx;
#pragma unroll
            for (unsigned j = 0; j < 4; ++j) {
                const long long row = r0 + ty + 8 * j;
                v[j] = (row < R && col < C) ? in[row * C + col] : 0.f;
            }
#pragma unroll
            for (unsigned j = 0; j < 4; ++j) {
                const long long row = r0 + ty + 8 * j;
                if (row < R && col < C) {
                    long long rank;
                    if (top) {
                        rank = ring_start(row, R, C) - row + col;                      // k = row
                    } else {
                        const long long k = R - 1 - row;
                        const long long w = C - 2 * k, h = R - 2 * k;
                        rank = ring_start(k, R, C) + (w - 1) + (h - 1) + (C - 1 - k) - col;
                    }
                    out[rank] = v[j];
                }
            }
        } else if (right || left) {
            // Column c of the tile is one run of its ring's right (rank = base + row) or left (rank = base - row) side.
            const long long col = c0 + tx;
#pragma unroll
            for (unsigned j = 0; j < 4; ++j) {
                const long long row = r0 + ty + 8 * j;
                if (row < R && col < C) tile[ty + 8 * j][tx] = in[row * C + col];
            }
            __syncthreads();
            const long long row = r0 + tx;
#pragma unroll
            for (unsigned j = 0; j < 4; ++j) {
                const long long c = c0 + ty + 8 * j;
                if (row < R && c < C) {
                    long long rank;
                    if (right) {
                        const long long k = C - 1 - c;
                        rank = ring_start(k, R, C) + (C - 2 * k - 1) - k + row;
                    } else {
                        const long long k = c;
                        const long long w = C - 2 * k, h = R - 2 * k;
                        rank = ring_start(k, R, C) + 2 * (w - 1) + (h - 1) + (R - 1 - k) - row;
                    }
                    out[rank] = tile[tx][ty + 8 * j];
                }
            }
            __syncthreads();
        } else {
            spiral_tile_mixed<32>(tile, out, in, R, C, r0, c0);
        }
    }
}

// SpiralBases: for one 64 x 64 tile, the rank base of each tile row on its ring's top
// and bottom side and of each tile column on its ring's right and left side, so that an
// element's rank is base + col (top), base - col (bottom), base + row (right) or
// base - row (left) once its side is known.
struct SpiralBases {
    long long top[64], bottom[64], right[64], left[64];
};

// spiral_side: which side of its ring (row, col) lies on, in spiral_rank's tie order:
// 0 top, 1 right, 2 bottom, 3 left.
__device__ __forceinline__ int spiral_side(long long row, long long col, long long rows, long long cols) {
    const long long to_top = row, to_right = cols - 1 - col, to_bottom = rows - 1 - row, to_left = col;
    if (to_top <= to_right && to_top <= to_bottom && to_top <= to_left) return 0;
    if (to_right <= to_bottom && to_right <= to_left) return 1;
    if (to_bottom <= to_left) return 2;
    return 3;
}

// spiral_tile_bases: a 64 x 64 tile of any mix of sides. Thread t computes base t (four
// tables of 64), the tile is staged, then pass A writes the top/bottom elements reading
// the tile row-wise and pass B the right/left ones reading it column-wise.
__device__ __forceinline__ void spiral_tile_bases(float (&tile)[64][65], SpiralBases& b, float* __restrict__ out,
                                                  const float* __restrict__ in, long long R, long long C, long long r0, long long c0) {
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned t = ty * 32 + tx, i = t & 63;
    if (t < 64) {
        const long long k = r0 + i;                                     // tile row i on ring k's top side
        b.top[i] = ring_start(k, R, C) - k;
    } else if (t < 128) {
        const long long k = R - 1 - (r0 + i);                           // ... on ring k's bottom side
        b.bottom[i] = ring_start(k, R, C) + (C - 2 * k - 1) + (R - 2 * k - 1) + (C - 1 - k);
    } else if (t < 192) {
        const long long k = C - 1 - (c0 + i);                           // tile column i on ring k's right side
        b.right[i] = ring_start(k, R, C) + (C - 2 * k - 1) - k;
    } else {
        const long long k = c0 + i;                                     // ... on ring k's left side
        b.left[i] = ring_start(k, R, C) + 2 * (C - 2 * k - 1) + (R - 2 * k - 1) + (R - 1 - k);
    }
#pragma unroll
    for (unsigned jr = 0; jr < 8; ++jr) {
        const long long row = r0 + ty + 8 * jr;
#pragma unroll
        for (unsigned jc = 0; jc < 2; ++jc) {
            const long long col = c0 + tx + 32 * jc;
            if (row < R && col < C) tile[ty + 8 * jr][tx + 32 * jc] = in[row * C + col];
        }
    }
    __syncthreads();
#pragma unroll
    for (unsigned jr = 0; jr < 8; ++jr) {
        const unsigned lr = ty + 8 * jr;
        const long long row = r0 + lr;
#pragma unroll
        for (unsigned jc = 0; jc < 2; ++jc) {
            const unsigned lc = tx + 32 * jc;
            const long long col = c0 + lc;
            if (row < R && col < C) {
                const int side = spiral_side(row, col, R, C);
                if (side == 0) out[b.top[lr] + col] = tile[lr][lc];
                else if (side == 2) out[b.bottom[lr] - col] = tile[lr][lc];
            }
        }
    }
#pragma unroll
    for (unsigned jr = 0; jr < 8; ++jr) {
        const unsigned lc = ty + 8 * jr;
        const long long col = c0 + lc;
#pragma unroll
        for (unsigned jc = 0; jc < 2; ++jc) {
            const unsigned lr = tx + 32 * jc;
            const long long row = r0 + lr;
            if (row < R && col < C) {
                const int side = spiral_side(row, col, R, C);
                if (side == 1) out[b.right[lc] + row] = tile[lr][lc];
                else if (side == 3) out[b.left[lc] - row] = tile[lr][lc];
            }
        }
    }
    __syncthreads();
}

// spiral_sweep64: a block's walk down its column of 64 x 64 tiles, v3's and v4's
// shared body. A tile wholly inside one side's triangle is written from each row's (or
// column's) rank base; any other tile by spiral_tile_mixed (v3) or spiral_tile_bases (v4).
template <bool BASES>
__device__ __forceinline__ void spiral_sweep64(float (&tile)[64][65], SpiralBases* bases, float* __restrict__ out,
                                               const float* __restrict__ in, long long R, long long C) {
    const long long tile_rows = (R + 63) / 64;
    const long long c0 = (long long)blockIdx.x * 64;
    const long long c1 = (c0 + 63 < C ? c0 + 63 : C - 1);
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    for (long long by = blockIdx.y; by < tile_rows; by += gridDim.y) {
        const long long r0 = by * 64;
        const long long r1 = (r0 + 63 < R ? r0 + 63 : R - 1);
        const bool top = r1 <= c0 && r1 <= C - 1 - c1 && r1 <= R - 1 - r1;
        const bool right = !top && C - 1 - c0 < r0 && C - 1 - c0 <= c0 && C - 1 - c0 <= R - 1 - r1;
        const bool bottom = !top && !right && R - 1 - r0 < r0 && R - 1 - r0 <= c0 && R - 1 - r0 < C - 1 - c1;
        const bool left = !top && !right && !bottom && c1 < r0 && c1 < R - 1 - r1 && c1 < C - 1 - c1;
        if (top || bottom) {
            float v[8][2];
#pragma unroll
            for (unsigned jr = 0; jr < 8; ++jr) {
                const long long row = r0 + ty + 8 * jr;
#pragma unroll
                for (unsigned jc = 0; jc < 2; ++jc) {
                    const long long col = c0 + tx + 32 * jc;
                    v[jr][jc] = (row < R && col < C) ? in[row * C + col] : 0.f;
                }
            }
#pragma unroll
            for (unsigned jr = 0; jr < 8; ++jr) {
                const long long row = r0 + ty + 8 * jr;
                if (row < R) {
                    long long base;   // rank = base + col (top) or base - col (bottom)
                    if (top) {
                        base = ring_start(row, R, C) - row;
                    } else {
                        const long long k = R - 1 - row;
                        base = ring_start(k, R, C) + (C - 2 * k - 1) + (R - 2 * k - 1) + (C - 1 - k);
                    }
#pragma unroll
                    for (unsigned jc = 0; jc < 2; ++jc) {
                        const long long col = c0 + tx + 32 * jc;
                        if (col < C) out[top ? base + col : base - col] = v[jr][jc];
                    }
                }
            }
        } else if (right || left) {
#pragma unroll
            for (unsigned jr = 0; jr < 8; ++jr) {
                const long long row = r0 + ty + 8 * jr;
#pragma unroll
                for (unsigned jc = 0; jc < 2; ++jc) {
                    const long long col = c0 + tx + 32 * jc;
                    if (row < R && col < C) tile[ty + 8 * jr][tx + 32 * jc] = in[row * C + col];
                }
            }
            __syncthreads();
#pragma unroll
            for (unsigned jr = 0; jr < 8; ++jr) {
                const long long col = c0 + ty + 8 * jr;
                if (col < C) {
                    long long base;   // rank = base + row (right) or base - row (left)
                    if (right) {
                        const long long k = C - 1 - col;
                        base = ring_start(k, R, C) + (C - 2 * k - 1) - k;
                    } else {
                        const long long k = col;
                        base = ring_start(k, R, C) + 2 * (C - 2 * k - 1) + (R - 2 * k - 1) + (R - 1 - k);
                    }
#pragma unroll
                    for (unsigned jc = 0; jc < 2; ++jc) {
                        const long long row = r0 + tx + 32 * jc;
                        if (row < R) out[right ? base + row : base - row] = tile[tx + 32 * jc][ty + 8 * jr];
                    }
                }
            }
            __syncthreads();
        } else if (BASES) {
            spiral_tile_bases(tile, *bases, out, in, R, C, r0, c0);
        } else {
            spiral_tile_mixed<64>(tile, out, in, R, C, r0, c0);
        }
    }
}

// v3: v2 on 64 x 64 tiles (64 x 65 floats, 16 640 bytes): 16 independent loads per thread instead of 4, and runs of 64 (256 bytes) per warp.
// v2 held 80 registers, so 3 blocks (up to 12 KB of loads in flight) per multiprocessor; v3 is capped at 64 (4 blocks, up to 64 KB).
// Launch blockDim = (32, 8), gridDim = (ceil(cols / 64), min(ceil(rows / 64), 65535)).
extern "C" __global__ void __launch_bounds__(256, 4) spiral_v3_tile64(float* __restrict__ out, const float* __restrict__ in,
                                                                  size_t rows, size_t cols) {
    __shared__ float tile[64][65];
    spiral_sweep64<false>(tile, nullptr, out, in, (long long)rows, (long long)cols);
}

// v4: v3 with the tiles that mix sides written from per-row and per-column rank bases, not the closed form twice per element.
// A tile on a diagonal or the centre (about 3% of the tiles at 4096^2) was expected to hold up v3's blocks (measured, v4
// gains up to about three points): each of its elements ran
// spiral_side_rank twice. Here 256 threads first compute one base each (a top and a bottom base per tile row, a right
// and a left base per tile column: 2 KB), after which an element's rank is a few comparisons and one add.
// Launch as v3: blockDim = (32, 8), gridDim = (ceil(cols / 64), min(ceil(rows / 64), 65535)).
extern "C" __global__ void __launch_bounds__(256, 4) spiral_v4_mixed_bases(float* __restrict__ out, const float* __restrict__ in,
                                                                       size_t rows, size_t cols) {
    __shared__ float tile[64][65];
    __shared__ SpiralBases bases;
    spiral_sweep64<true>(tile, &bases, out, in, (long long)rows, (long long)cols);
}
// ANCHOR_END: ladder
