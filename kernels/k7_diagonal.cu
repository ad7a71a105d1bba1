// Appendix K.7: a lattice-path table, paths(r, c) = paths(r-1, c) + paths(r, c-1),
// filled three ways. Each kernel has a Rust twin in chapters/k7_diagonal/src/lib.rs
// written to be read side by side.
//
// Counts are kept modulo the Mersenne prime 2^61 - 1: exact integer arithmetic
// at any grid size (a float table is wrong from diagonal 28 and infinite from
// diagonal 132). Flat indices are 64-bit throughout.

#define LATTICE_MODULUS ((1ull << 61) - 1)

// add_mod: two residues sum to less than 2^62, one subtraction reduces them.
__device__ __forceinline__ unsigned long long add_mod(unsigned long long a, unsigned long long b) {
    unsigned long long sum = a + b;
    return sum >= LATTICE_MODULUS ? sum - LATTICE_MODULUS : sum;
}

// row_min / row_max: the rows diagonal d covers in a rows x cols table.
__device__ __forceinline__ long long row_min(long long d, long long cols) {
    return d - (cols - 1) > 0 ? d - (cols - 1) : 0;
}
__device__ __forceinline__ long long row_max(long long d, long long rows) {
    return d < rows - 1 ? d : rows - 1;
}

// lattice_cell: the recurrence, written once. The edges are 1; any other
// cell is the sum of its upper and left neighbours, both on the previous
// diagonal.
__device__ __forceinline__ unsigned long long lattice_cell(const unsigned long long* grid, long long row, long long col, long long cols) {
    long long at = row * cols + col;
    return (row == 0 || col == 0) ? 1ull : add_mod(grid[at - cols], grid[at - 1]);
}

// ANCHOR: wavefront_cu
// lattice_wavefront: launched once per diagonal d = 0 .. rows+cols-2, as a 1D
// grid of ceil(diagonal_len / blockDim.x) blocks (wavefront_plan). Every cell
// it writes depends only on diagonal d - 1, finished by the previous launch.
extern "C" __global__ void lattice_wavefront(unsigned long long* grid, long long rows, long long cols, long long d) {
    long long row = row_min(d, cols) + (long long)blockIdx.x * blockDim.x + threadIdx.x;   // row_min + t.global_x()
    if (row > row_max(d, rows)) {
        return;                                               // a spare thread: row_max(d) is behind it
    }
    long long col = d - row;
    unsigned long long value = lattice_cell(grid, row, col, cols);   // both inputs on diagonal d - 1
    grid[row * cols + col] = value;
}
// ANCHOR_END: wavefront_cu

// ANCHOR: single_launch_cu
// lattice_single_launch: the same update launched ONCE over the whole
// rows x cols grid (single_launch_plan). WRONG ON PURPOSE: nothing orders this
// thread after the threads that write grid[at - cols] and grid[at - 1], so it
// may read zeros (the memset) or neighbours that were themselves computed
// from zeros. The book's simulator shows it breaking under reversed,
// shuffled and lock-step schedules.
extern "C" __global__ void lattice_single_launch(unsigned long long* grid, long long rows, long long cols) {
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;   // t.global_y()
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;   // t.global_x()
    if (row >= rows || col >= cols) {
        return;
    }
    unsigned long long value = lattice_cell(grid, row, col, cols);   // finished yet? nothing says so
    grid[row * cols + col] = value;                           // the store half
}
// ANCHOR_END: single_launch_cu

// ANCHOR: tiled_cu
// lattice_tiled: launched once per diagonal of tiles, tile_d = 0 ..
// tiles_down+tiles_across-2, with one tile x tile block (blockDim.x ==
// blockDim.y == tile) per tile on that diagonal (tiled_plan). Inside the
// block, loop iteration `step` updates the tile's own step-th diagonal, then a
// barrier ends the step (a phase boundary in the simulator). Threads outside
// the table stay in the loop, so every thread reaches every __syncthreads().
extern "C" __global__ void lattice_tiled(unsigned long long* grid, long long rows, long long cols, long long tile_d) {
    long long tile = blockDim.x;
    long long tiles_across = (cols + tile - 1) / tile;         // row_min needs only the width
    long long tile_row = row_min(tile_d, tiles_across) + blockIdx.x;   // tile_of(...)
    long long tile_col = tile_d - tile_row;
    long long row = tile_row * tile + threadIdx.y;
    long long col = tile_col * tile + threadIdx.x;
    for (int step = 0; step < 2 * (int)tile - 1; ++step) {     // the Rust twin is one iteration
        bool on_this_diagonal = (int)(threadIdx.x + threadIdx.y) == step;
        if (on_this_diagonal && row < rows && col < cols) {
            unsigned long long value = lattice_cell(grid, row, col, cols);
            grid[row * cols + col] = value;
        }
        __syncthreads();                                       // the simulator ends the step here
    }
}
// ANCHOR_END: tiled_cu

// ANCHOR: ladder
// ---- How fast can it go ----
// The whole table in ONE launch. v1 and v2 keep the recurrence and replace the
// launch boundaries by waiting: a warp owns a band of 32 * R consecutive rows
// and sweeps it left to right as a systolic array. Lane t owns rows
// band_start + t*R .. + R-1 and at step s works on column s - t, one step
// behind lane t-1, so the value from above arrives by __shfl_up_sync from the
// lane that computed it a step earlier: no barrier per cell. Lane 0 of band b
// needs the last row of band b-1; lane 31 of band b-1 publishes each value of
// that row into a side buffer with bit 63 set (the value is below 2^61), so
// the value is its own ready flag: band b's warp waits for a chunk of 32
// columns at a time, each lane polling one slot until it sees bit 63 and
// clearing it after reading, and hands the values to lane 0 by shuffle. Bands
// are handed out in order by an atomic counter, so the band a warp waits on
// was taken earlier by a running warp: no deadlock, whatever the grid.
//
// Launch: blockDim = (32, 1), gridDim = (min(bands, 1024), 1), bands =
// ceil(rows / (32 * R)) (R = 1 for v1, 2 for v2). Arguments:
// (grid, rows, cols, work), rows and cols as long long like lattice_wavefront;
// work: 2 + bands * cols u64, ZEROED ONCE when allocated; each launch leaves it
// zeroed again (counters reset by the last warp out, slots cleared by readers).

__device__ __forceinline__ unsigned long long lattice_ld_relaxed(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void lattice_st_relaxed(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

template <int R>
__device__ __forceinline__ void lattice_band_sweep(unsigned long long* grid, long long rows, long long cols,
                                                   unsigned long long* work) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned full = 0xffffffffu;
    const unsigned long long ready_bit = 1ull << 63;
    const long long band_rows = 32 * R;
    const unsigned long long bands = (unsigned long long)((rows + band_rows - 1) / band_rows);
    unsigned long long* take = work;
    unsigned long long* finished = work + 1;
    unsigned long long* slots = work + 2;
    for (;;) {
        unsigned long long b = 0;
        if (lane == 0) b = atomicAdd(take, 1ull);
        b = __shfl_sync(full, b, 0);
        if (b >= bands) break;
        const long long first_row = (long long)b * band_rows + (long long)lane * R;
        unsigned long long* above = slots + (b - 1) * (unsigned long long)cols;   // read only when b > 0
        unsigned long long* below = slots + b * (unsigned long long)cols;         // written only when b + 1 < bands
        const bool publish = lane == 31 && b + 1 < bands;
        unsigned long long v[R];
#pragma unroll
        for (int i = 0; i < R; ++i) v[i] = 0;
        unsigned long long chunk = 0;                       // column (s & ~31) + lane of band b-1's last row
        for (long long s = 0; s < cols + 31; ++s) {
            if ((s & 31) == 0 && b > 0) {
                const long long c = s + lane;
                if (c < cols) {
                    unsigned long long x;
                    do {
                        x = lattice_ld_relaxed(above + c);
                    } while (!(x & ready_bit));
                    lattice_st_relaxed(above + c, 0);      // leave the slot clean for the next launch
                    chunk = x & ~ready_bit;
                }
            }
            unsigned long long up = __shfl_up_sync(full, v[R - 1], 1);
            const unsigned long long from_chunk = __shfl_sync(full, chunk, (unsigned)(s & 31));
            if (lane == 0) up = from_chunk;
            const long long c = s - (long long)lane;
            if (c >= 0 && c < cols) {
#pragma unroll
                for (int i = 0; i < R; ++i) {
                    const long long row = first_row + i;
                    const unsigned long long value = (row == 0 || c == 0) ? 1ull : add_mod(up, v[i]);
                    v[i] = value;
                    up = value;
                    if (row < rows) grid[row * cols + c] = value;
                }
                if (publish) lattice_st_relaxed(below + c, v[R - 1] | ready_bit);
            }
        }
    }
    if (lane == 0) {
        const unsigned long long warps = (unsigned long long)gridDim.x * (blockDim.x / 32);
        if (atomicAdd(finished, 1ull) == warps - 1) {      // every warp has stopped taking bands
            atomicExch(take, 0ull);
            atomicExch(finished, 0ull);
        }
    }
}

// v1: one launch; a warp per 32-row band sweeps as a systolic array, waiting on the band above through flagged values instead of launches.
extern "C" __global__ void __launch_bounds__(32) lattice_v1_systolic(unsigned long long* grid, long long rows, long long cols,
                                                                    unsigned long long* work) {
    lattice_band_sweep<1>(grid, rows, cols, work);
}

// v2: two rows per lane (64-row bands): half as many band-to-band hand-offs on the critical path, for one more add per step.
extern "C" __global__ void __launch_bounds__(32) lattice_v2_systolic_2rows(unsigned long long* grid, long long rows, long long cols,
                                                                          unsigned long long* work) {
    lattice_band_sweep<2>(grid, rows, cols, work);
}

// v3 reformulates instead: paths(r, c) = C(r + c, r), and r + c < 2^61 - 1, a
// prime, so C(r + c, r) = (r + c)! / (r! c!) mod 2^61 - 1 exactly. The first
// block to arrive builds n! and 1/n! for n < rows + cols - 1 into work (one warp,
// prefix products by shuffles, one inverse by Fermat) and raises a flag;
// every block then writes whole rows, each cell two multiplications, stores
// coalesced. Launch: blockDim = (256, 1), gridDim = (min(rows, SMs * BLOCKS_PER_SM), 1),
// SMs the device's multiprocessor count, BLOCKS_PER_SM = 8 (ktrav::ladder::BLOCKS_PER_SM);
// (grid, rows, cols, work); work: 3 + 2 * (rows + cols - 1) u64, ZEROED ONCE
// when allocated, left zeroed by each launch except the tables.

__device__ __forceinline__ unsigned long long mul_mod(unsigned long long a, unsigned long long b) {
    const unsigned long long lo = a * b, hi = __umul64hi(a, b);
    const unsigned long long sum = (lo & LATTICE_MODULUS) + ((lo >> 61) | (hi << 3));
    return sum >= LATTICE_MODULUS ? sum - LATTICE_MODULUS : sum;
}

// Inclusive prefix product across the warp, lane order.
__device__ __forceinline__ unsigned long long warp_prefix_product(unsigned long long x) {
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        const unsigned long long y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x = mul_mod(x, y);
    }
    return x;
}

extern "C" __global__ void __launch_bounds__(256) lattice_v3_binomial(unsigned long long* grid, long long rows, long long cols,
                                                                     unsigned long long* work) {
    unsigned long long* ticket = work;
    unsigned long long* ready = work + 1;
    unsigned long long* finished = work + 2;
    const long long n = rows + cols - 1;                  // r + c runs over 0 .. n - 1
    unsigned long long* fact = work + 3;
    unsigned long long* inv_fact = work + 3 + n;
    __shared__ unsigned long long builder;
    if (threadIdx.x == 0) builder = atomicAdd(ticket, 1ull) == 0 ? 1ull : 0ull;
    __syncthreads();
    if (builder != 0 && threadIdx.x < 32) {
        // Lane t owns numbers [t * per, (t + 1) * per); factor i counts as max(i, 1).
        const unsigned lane = threadIdx.x;
        const long long per = (n + 31) / 32;
        const long long lo = (long long)lane * per, hi = lo + per < n ? lo + per : n;
        unsigned long long p = 1;
        for (long long i = lo; i < hi; ++i) p = mul_mod(p, i == 0 ? 1ull : (unsigned long long)i);
        const unsigned long long incl = warp_prefix_product(p);
        unsigned long long run = __shfl_up_sync(0xffffffffu, incl, 1);
        if (lane == 0) run = 1;
        for (long long i = lo; i < hi; ++i) {
            run = mul_mod(run, i == 0 ? 1ull : (unsigned long long)i);
            fact[i] = run;                                  // i!
        }
        // 1 / (n-1)! by Fermat: x^(p-2), p - 2 = 2^61 - 3.
        const unsigned long long total = __shfl_sync(0xffffffffu, incl, 31);
        unsigned long long inv = 1, base = total, e = LATTICE_MODULUS - 2;
        while (e != 0) {
            if (e & 1) inv = mul_mod(inv, base);
            base = mul_mod(base, base);
            e >>= 1;
        }
        // 1/i! = 1/(n-1)! * prod_{j=i+1}^{n-1} j: a suffix product. Lane t's own
        // factors are j in (lo, hi], capped at n - 1.
        unsigned long long q = 1;
        for (long long j = lo + 1; j <= hi && j <= n - 1; ++j) q = mul_mod(q, (unsigned long long)j);
        // Exclusive suffix product over lanes: product of q over lanes > t.
        unsigned long long suffix = q;
#pragma unroll
        for (unsigned d = 1; d < 32; d *= 2) {
            const unsigned long long y = __shfl_down_sync(0xffffffffu, suffix, d);
            if (lane + d < 32) suffix = mul_mod(suffix, y);
        }
        unsigned long long after = __shfl_down_sync(0xffffffffu, suffix, 1);
        if (lane == 31) after = 1;
        // 1/(hi-1)! = 1/(n-1)! * hi * (the lanes above), then downwards.
        unsigned long long acc = mul_mod(mul_mod(inv, after), hi <= n - 1 ? (unsigned long long)hi : 1ull);
        for (long long i = hi - 1; i >= lo; --i) {
            inv_fact[i] = acc;                              // 1/i! = 1/(n-1)! * prod_{j=i+1}^{n-1} j
            acc = mul_mod(acc, (unsigned long long)(i == 0 ? 1 : i));
        }
        __syncwarp();
        if (lane == 0) {
            __threadfence();
            atomicExch(ready, 1ull);
        }
    }
    if (threadIdx.x == 0) {
        while (lattice_ld_relaxed(ready) == 0) {
        }
        __threadfence();
    }
    __syncthreads();
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const unsigned long long inv_r = __ldcg(inv_fact + r);
        for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
            grid[r * cols + c] = mul_mod(mul_mod(__ldcg(fact + r + c), inv_r), __ldcg(inv_fact + c));
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (atomicAdd(finished, 1ull) == (unsigned long long)gridDim.x - 1) {   // every block has read the flag
            atomicExch(ticket, 0ull);
            atomicExch(ready, 0ull);
            atomicExch(finished, 0ull);
        }
    }
}

// v4 (measured SLOWER than v1 on the H200, the book's table has the times: kept to show that the stores were not the limit):
// v1 with its stores staged: each lane parks its value in a 32 x 32 shared tile (8 KB, conflict-free: lane t writes word
// t*32 + (s-t)%32) and, per step, the warp writes the one row that just finished 32 columns as a single 256-byte store;
// the band's last row is published to the band below from those same coalesced stores. v1 issued one store touching
// 32 rows (32 cache lines) per step, plus a flag store per step. Launch and work as v1: blockDim = (32, 1),
// gridDim = (min(ceil(rows / 32), 1024), 1), (grid, rows, cols, work), work 2 + ceil(rows / 32) * cols u64 zeroed once.
// What limits v1 and v4 (Nsight Compute, bench/results/run2_ncu_lattice.log, which profiles those two): one warp per
// multiprocessor, issuing an instruction only every 7 to 8 cycles, and the stall the profiler names, about 40% of those
// cycles, is the L1TEX scoreboard: the warp waiting on global loads, which here are its polls of the band above's
// flagged values (and one atomic per band). The band hand-off, not the bytes stored, is what the warp waits on.
extern "C" __global__ void __launch_bounds__(32) lattice_v4_systolic_staged(unsigned long long* grid, long long rows, long long cols,
                                                                           unsigned long long* work) {
    __shared__ unsigned long long stage[32][32];
    const unsigned lane = threadIdx.x & 31;
    const unsigned full = 0xffffffffu;
    const unsigned long long ready_bit = 1ull << 63;
    const unsigned long long bands = (unsigned long long)((rows + 31) / 32);
    unsigned long long* take = work;
    unsigned long long* finished = work + 1;
    unsigned long long* slots = work + 2;
    for (;;) {
        unsigned long long b = 0;
        if (lane == 0) b = atomicAdd(take, 1ull);
        b = __shfl_sync(full, b, 0);
        if (b >= bands) break;
        const long long r0 = (long long)b * 32;
        const long long row = r0 + lane;
        unsigned long long* above = slots + (b - 1) * (unsigned long long)cols;   // read only when b > 0
        unsigned long long* below = slots + b * (unsigned long long)cols;         // written only when b + 1 < bands
        const bool publish = b + 1 < bands;
        unsigned long long v = 0, chunk = 0;
        for (long long s = 0; s < cols + 31; ++s) {
            if ((s & 31) == 0 && b > 0) {
                const long long c = s + lane;
                if (c < cols) {
                    unsigned long long x;
                    do {
                        x = lattice_ld_relaxed(above + c);
                    } while (!(x & ready_bit));
                    lattice_st_relaxed(above + c, 0);      // leave the slot clean for the next launch
                    chunk = x & ~ready_bit;
                }
            }
            unsigned long long up = __shfl_up_sync(full, v, 1);
            const unsigned long long from_chunk = __shfl_sync(full, chunk, (unsigned)(s & 31));
            if (lane == 0) up = from_chunk;
            const long long c = s - (long long)lane;
            if (c >= 0 && c < cols) {
                v = (row == 0 || c == 0) ? 1ull : add_mod(up, v);
                stage[lane][c & 31] = v;
            }
            __syncwarp();
            // Row j = (s + 1) % 32 has just computed column s - j, the last of a 32-column chunk.
            const unsigned j = (unsigned)((s + 1) & 31);
            const long long last = s - (long long)j;
            if (last >= 0 && last < cols) {
                const long long col = last - 31 + lane;
                const unsigned long long x = stage[j][lane];
                if (r0 + j < rows) grid[(r0 + j) * cols + col] = x;
                if (j == 31 && publish) lattice_st_relaxed(below + col, x | ready_bit);
            }
            __syncwarp();
        }
        if (cols & 31) {                                   // the ragged last chunk of every row
            const long long col = (cols & ~31ll) + lane;
            for (unsigned j = 0; j < 32; ++j) {
                if (col < cols) {
                    const unsigned long long x = stage[j][lane];
                    if (r0 + j < rows) grid[(r0 + j) * cols + col] = x;
                    if (j == 31 && publish) lattice_st_relaxed(below + col, x | ready_bit);
                }
            }
        }
        __syncwarp();
    }
    if (lane == 0) {
        const unsigned long long warps = (unsigned long long)gridDim.x * (blockDim.x / 32);
        if (atomicAdd(finished, 1ull) == warps - 1) {
            atomicExch(take, 0ull);
            atomicExch(finished, 0ull);
        }
    }
}

// v5: v2's two rows per lane, skewed so both cells of a step are independent, and the table's stores staged and written 256 bytes at a time.
// Lane t computes its row i at column s - i - 2t at step s: row 0 needs lane t-1's row 1 of the same column, computed
// one step earlier and shuffled up, and row 1 needs this lane's row 0 from one step earlier, so a step is two
// independent adds. Steps run in chunks of 32 with every index known at compile time; bounds are tested only in the
// chunks at either end of a band. Each cell goes to a 32 x 33 u64 stage per row of the lane (16 896 bytes); after a
// chunk the warp writes each of the band's 64 rows as 32 consecutive cells, one coalesced 256-byte store, where v1
// and v2 wrote 32 rows a cache line each per step. The band above's last row (flagged slots, as v1) is read a chunk
// of 32 columns at a time, each lane loading one slot and lane 0 taking the values by shuffle: the warp waits for the
// first chunk, then loads each next chunk while the rows of the current one are being written.
// Launch: blockDim = (32, 1) (exactly one warp: lanes, shuffles and the stage assume it),
// gridDim = (min(ceil(rows / 64), 1024), 1); (grid, rows, cols, work), work as v2: 2 + ceil(rows / 64) * cols u64,
// zeroed once when allocated and left zeroed by each launch.

// lattice_ld_flag / lattice_publish: ld.relaxed of a flagged slot, and st.relaxed of a
// flagged value predicated instead of branched. Unlike lattice_ld_relaxed they are no
// compiler barrier: the value is its own ready flag and nothing else is ordered by it, so
// the stage's shared-memory traffic may be scheduled around them.
__device__ __forceinline__ unsigned long long lattice_ld_flag(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ void lattice_publish(unsigned long long* p, unsigned long long v, bool on) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0; @p st.relaxed.gpu.global.u64 [%0], %1; }" ::"l"(p), "l"(v), "r"((int)on));
}

// lattice_skew_chunk: steps s0 .. s0 + 31 of lane `lane`; CHECK tests every cell's bounds
// and the table's edges (the first and last chunks of a band), otherwise every cell is
// inside the table and off both edges.
template <bool CHECK>
__device__ __forceinline__ void lattice_skew_chunk(long long s0, unsigned long long (&v)[2], unsigned long long from_above,
                                                   unsigned long long (*stage)[32][33], bool lane0, bool publish,
                                                   unsigned long long* below, long long cols, long long first_row) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned full = 0xffffffffu;
    const unsigned long long ready_bit = 1ull << 63;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
        const long long c = s0 + j - 2 * (long long)lane;                    // row 0's column this step
        const unsigned long long up = __shfl_up_sync(full, v[1], 1);        // lane t-1's row 1, column c
        const unsigned long long above = __shfl_sync(full, from_above, j);  // lane 0: the band above, column c
        const unsigned long long u0 = lane0 ? above : up;
        unsigned long long n0, n1;
        if (CHECK) {
            n0 = (first_row == 0 || c == 0) ? 1ull : add_mod(u0, v[0]);
            n1 = (c - 1 == 0) ? 1ull : add_mod(v[0], v[1]);
        } else {
            n0 = add_mod(u0, v[0]);
            n1 = add_mod(v[0], v[1]);
        }
        stage[0][lane][j] = n0;
        stage[1][lane][j] = n1;
        const long long cl = c - 1;                                           // row 1's column
        lattice_publish(below + cl, n1 | ready_bit, publish && (!CHECK || (cl >= 0 && cl < cols)));
        v[0] = n0;
        v[1] = n1;
    }
}

extern "C" __global__ void __launch_bounds__(32) lattice_v5_skewed_staged(unsigned long long* grid, long long rows, long long cols,
                                                                         unsigned long long* work) {
    __shared__ unsigned long long stage[2][32][33];
    const unsigned lane = threadIdx.x & 31;
    const unsigned full = 0xffffffffu;
    const unsigned long long ready_bit = 1ull << 63;
    const unsigned long long bands = (unsigned long long)((rows + 63) / 64);
    const long long steps = cols + 1 + 31 * 2;                             // lane 31's row 1 reaches column cols - 1
    const long long fast_from = (31 * 2 + 2 + 31) / 32 * 32;                // every lane past column 0
    const long long fast_to = cols / 32 * 32;                               // lane 0 before column cols
    unsigned long long* take = work;
    unsigned long long* finished = work + 1;
    unsigned long long* slots = work + 2;
    for (;;) {
        unsigned long long b = 0;
        if (lane == 0) b = atomicAdd(take, 1ull);
        b = __shfl_sync(full, b, 0);
        if (b >= bands) break;
        const long long band0 = (long long)b * 64;
        const long long band_rows = rows - band0 < 64 ? rows - band0 : 64;
        unsigned long long* above = slots + (b - 1) * (unsigned long long)cols;   // read only when b > 0
        unsigned long long* below = slots + b * (unsigned long long)cols;         // written only when b + 1 < bands
        const bool fetch = b > 0;
        const bool publish = lane == 31 && b + 1 < bands;
        unsigned long long v[2] = {0, 0};
        unsigned long long chunk = 0, next = 0;
        if (fetch && (long long)lane < cols) {
            unsigned long long x;
            do {
                x = lattice_ld_flag(above + lane);
            } while (!(x & ready_bit));
            chunk = x;
        }
        unsigned long long* row_start = grid + band0 * cols + lane;          // row 0 of the band, column s0 + lane
        for (long long s0 = 0; s0 < steps; s0 += 32, row_start += 32) {
            if (fetch) {
                const long long c = s0 + lane;
                if (s0 > 0 && c < cols) {
                    unsigned long long x = next;
                    while (!(x & ready_bit)) x = lattice_ld_flag(above + c);
                    chunk = x;
                }
                if (c < cols) lattice_st_relaxed(above + c, 0);               // leave the slot clean for the next launch
                chunk &= ~ready_bit;
            }
            const bool fast = s0 >= fast_from && s0 + 32 <= fast_to;
            if (fast) {
                lattice_skew_chunk<false>(s0, v, chunk, stage, lane == 0, publish, below, cols, band0 + 2 * lane);
            } else {
                lattice_skew_chunk<true>(s0, v, chunk, stage, lane == 0, publish, below, cols, band0 + 2 * lane);
            }
            if (fetch && s0 + 32 + lane < cols) next = lattice_ld_flag(above + s0 + 32 + lane);
            __syncwarp();
            // Lane t's row i holds columns s0 - i - 2t .. + 31: one store of 32 cells per row.
            unsigned long long* p = row_start;
            if (fast && band_rows == 64) {
#pragma unroll
                for (int t = 0; t < 32; ++t, p += 2 * cols - 2) {
                    p[0] = stage[0][t][lane];
                    p[cols - 1] = stage[1][t][lane];
                }
            } else {
#pragma unroll 1
                for (int t = 0; t < 32; ++t, p += 2 * cols - 2) {
#pragma unroll
                    for (int i = 0; i < 2; ++i) {
                        const long long col = s0 - i - 2 * t + (long long)lane;
                        if (2 * t + i < band_rows && col >= 0 && col < cols) p[i * (cols - 1)] = stage[i][t][lane];
                    }
                }
            }
            __syncwarp();
        }
    }
    if (lane == 0) {
        const unsigned long long warps = (unsigned long long)gridDim.x * (blockDim.x / 32);
        if (atomicAdd(finished, 1ull) == warps - 1) {      // every warp has stopped taking bands
            atomicExch(take, 0ull);
            atomicExch(finished, 0ull);
        }
    }
}
// ANCHOR_END: ladder
