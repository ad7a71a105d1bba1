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
        return;                                               // boundary check: past this diagonal's last row
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
// may read zeros (the memset) or half-finished neighbours. The book's
// simulator shows it breaking under reversed, shuffled and lock-step schedules.
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
