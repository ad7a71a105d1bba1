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
    // A ring that is a lone row is all top side; a lone column is all
    // right side. Testing the sides in walk order handles both.
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
        *row = top + offset - (width - 1);                              // right side (all of a lone column)
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
