// Lab exercise K.7 'wavefront': one step of the lattice-path table
// paths(r, c) = paths(r-1, c) + paths(r, c-1) (mod 2^61 - 1), with
// paths(0, c) = paths(r, 0) = 1, on a rows x cols row-major table. The
// checker launches this kernel once per anti-diagonal d = 0 .. rows+cols-2,
// in order, each time as a 1D grid of ceil(cells on d / 256) blocks of 256
// threads: thread k of the launch owns the k-th cell of diagonal d, counted
// from its smallest row. The table starts filled with garbage.
//
// Check it with: cargo run --release -p k7_diagonal -- check wavefront.cu
// expect: wavefront: unwritten (until the TODO is done)

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

extern "C" __global__ void lattice_wavefront(unsigned long long* grid, long long rows, long long cols, long long d) {
    // TODO: this thread's row on diagonal d (row_min plus its global x),
    // turned away past the diagonal's last row; its column; and the cell's
    // value from its two neighbours on diagonal d - 1.
    (void)grid; (void)rows; (void)cols; (void)d;
}
