// Lab exercise K.6 'spiral-find-the-bug': out[i] is the element of `in`
// (rows x cols, row-major) that comes i-th in clockwise spiral order, one
// thread per OUTPUT slot as in 'spiral-gather'. It passes the source's four
// kernel cases. Find the shape where it fails, say why, and fix it. The
// checker launches it as it launches 'spiral-gather': blockDim = (32, 8) and
// gridDim = (ceil(cols / 32), ceil(rows / 8)).
//
// Check it with: cargo run --release -p k6_spiral -- check find_the_bug.cu --exercise spiral-find-the-bug
// expect: spiral-find-the-bug: wrong (only on matrices wider than tall with an odd number of rows)

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
    // The collapsed centre of an odd min(rows, cols) is one line of cells:
    // walk it from the ring's top-right corner, down it or along it.
    if (width == 1 || height == 1) {
        *row = top + (width == 1 ? offset : 0);
        *col = right - (height == 1 ? offset : 0);
        return;
    }
    // A full ring: its four sides, located by how far along it `offset` is.
    if (offset < width) {
        *row = top;                                                     // top side
        *col = left + offset;
    } else if (offset < width + height - 1) {
        *row = top + offset - (width - 1);                              // right side
        *col = right;
    } else if (offset < 2 * width + height - 2) {
        *row = bottom;                                                  // bottom side
        *col = right - (offset - (width - 1) - (height - 1));
    } else {
        *row = bottom - (offset - 2 * (width - 1) - (height - 1));      // left side
        *col = left;
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
    out[to] = in[src_row * cols + src_col];
}
