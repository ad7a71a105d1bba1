// Lab exercise K.4 'guard': write the marker row * 1000 + col (as a float)
// into every cell of a rows x cols row-major matrix, and nowhere else. The
// checker launches blockDim = (32, 8) and gridDim = (ceil(cols / 32),
// ceil(rows / 8)), so the last blocks on both axes stick out of the matrix,
// and watches the memory on both sides of it.
//
// Check it with: cargo run --release -p k4_boundary_check -- check guard.cu
// expect: guard: unwritten (until the TODO is done)

extern "C" __global__ void fill_checked(float* __restrict__ out, size_t rows, size_t cols) {
    // TODO: this thread's row and column, a guard, and the store.
    (void)out; (void)rows; (void)cols;
}
