// Lab exercise K.7 'wavefront-find-the-bug': one step of the lattice-path
// table paths(r, c) = paths(r-1, c) + paths(r, c-1) (mod 2^61 - 1), with
// paths(0, c) = paths(r, 0) = 1, on a rows x cols row-major table, as in
// 'wavefront'. It matches the source's five tables. Find the shape where it
// fails, say why, and fix it. The checker launches it as it launches
// 'wavefront': once per anti-diagonal d = 0 .. rows+cols-2, in order, each
// time as a 1D grid of ceil(cells on d / 256) blocks of 256 threads.
//
// Check it with: cargo run --release -p k7_diagonal -- check find_the_bug.cu --exercise wavefront-find-the-bug
// expect: wavefront-find-the-bug: wrong (only where the counts pass the modulus)

#define LATTICE_MODULUS ((1ull << 61) - 1)

// row_min / row_max: the rows diagonal d covers in a rows x cols table.
__device__ __forceinline__ long long row_min(long long d, long long cols) {
    return d - (cols - 1) > 0 ? d - (cols - 1) : 0;
}
__device__ __forceinline__ long long row_max(long long d, long long rows) {
    return d < rows - 1 ? d : rows - 1;
}

extern "C" __global__ void lattice_wavefront(unsigned long long* grid, long long rows, long long cols, long long d) {
    long long row = row_min(d, cols) + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row > row_max(d, rows)) {
        return;                                               // a spare thread: row_max(d) is behind it
    }
    long long col = d - row;
    long long at = row * cols + col;
    // The edges are 1; any other cell is the sum of its upper and left
    // neighbours, both on diagonal d - 1, finished by the previous launch.
    grid[at] = (row == 0 || col == 0) ? 1ull : grid[at - cols] + grid[at - 1];
}
