// Lab exercise K.5 'col-major-add': out = a + b, element by element, for
// rows x cols matrices stored column-major. Make threadIdx.x walk the axis
// with stride 1, which for column-major data is the rows. The checker
// launches blockDim = (32, 8) and gridDim = (ceil(rows / 32), ceil(cols / 8)).
//
// Check it with: cargo run --release -p k5_layout_interop -- check col_major_add.cu
// expect: col-major-add: unwritten (until the TODO is done)

extern "C" __global__ void add_col_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    // TODO: this thread's row (from x) and column (from y), both guarded, and
    // the column-major offset of that element.
    (void)out; (void)a; (void)b; (void)rows; (void)cols;
}
