// Lab exercise K.4 'add': out = a + b, element by element, for rows x cols
// matrices stored row-major, with a guard on both axes. The checker launches
// blockDim = (32, 8) and gridDim = (ceil(cols / 32), ceil(rows / 8)), so the
// last blocks on both axes stick out of the matrix, and watches the memory on
// both sides of the output.
//
// Check it with: cargo run --release -p k4_boundary_check -- check add.cu --exercise add
// expect: add: unwritten (until the TODO is done)

extern "C" __global__ void add_checked(float* __restrict__ out, const float* __restrict__ a,
                                       const float* __restrict__ b, size_t rows, size_t cols) {
    // TODO: this thread's row and column, a guard on both, and the sum of
    // the two elements at row * cols + col.
    (void)out; (void)a; (void)b; (void)rows; (void)cols;
}
