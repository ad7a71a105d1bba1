// A wrong kernel for the K.7 lab exercise 'wavefront' (plausible student code).
// No check against the diagonal's last row: the spare threads of the last
// block write cells off the diagonal, and past the end of the table.
// expect: wavefront: out of bounds

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
    long long row = row_min(d, cols) + (long long)blockIdx.x * blockDim.x + threadIdx.x;   // row_min + t.global_x()
    long long col = d - row;
    long long at = row * cols + col;
    grid[at] = (row == 0 || col == 0)
        ? 1ull
        : add_mod(grid[at - cols], grid[at - 1]);             // both on diagonal d - 1
}
