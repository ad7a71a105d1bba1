// A wrong kernel for the K.6 lab exercise 'spiral-gather' (plausible student code).
// Walks each ring top, right, LEFT, bottom.
// expect: spiral-gather: wrong

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
    } else if (offset < width + 2 * height - 3) {
        *row = bottom - (offset - (width - 1) - (height - 1));          // left side, too early
        *col = left;
    } else {
        *row = bottom;                                                  // then the bottom
        *col = right - (offset - (width - 1) - 2 * (height - 1));
    }
}

extern "C" __global__ void spiral_gather(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows || col >= cols) {
        return;
    }
    long long to = row * cols + col;
    long long src_row, src_col;
    spiral_position(to, rows, cols, &src_row, &src_col);
    long long from = src_row * cols + src_col;
    out[to] = in[from];
}
