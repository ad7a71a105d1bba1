// Appendix K.5: one element-wise addition, out = a + b, written twice: once
// for row-major buffers and once for column-major ones.
//
//   add_row_major  threadIdx.x walks columns, the contiguous axis of a
//                  row-major matrix. Launch gridDim = (ceil(cols / blockDim.x),
//                  ceil(rows / blockDim.y)).
//   add_col_major  threadIdx.x walks rows, the contiguous axis of a
//                  column-major matrix. Launch gridDim = (ceil(rows / blockDim.x),
//                  ceil(cols / blockDim.y)).
//
// In both, neighbouring lanes of a warp touch neighbouring addresses. The
// layout picks x's axis: its stride-1 axis, the column only for row-major.
// Both guard both axes (see K.4 for what happens otherwise).
//
//   add_row_major_x_rows  row-major offsets, but threadIdx.x walks rows.
//   add_col_major_x_cols  column-major offsets, but threadIdx.x walks columns.
//                  The two mismatched pairings of the chapter's warp table:
//                  still correct, but a warp's lanes sit a whole row (or
//                  column) apart. They exist so the GPU section can time all
//                  four pairings side by side; launch each with gridDim.x
//                  covering the axis its x walks.
//
// The Rust twins of all four kernels, under the same names, are in
// chapters/k5_layout_interop/src/lib.rs, line for line; `launch_plan` in the
// same file gives each kernel's launch to the simulator and the GPU alike.

// ANCHOR: kernels
extern "C" __global__ void add_row_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks columns
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = row * cols + col;                             // row-major offset
        out[i] = a[i] + b[i];
    }
}

extern "C" __global__ void add_col_major(float* __restrict__ out, const float* __restrict__ a,
                                         const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks rows
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = col * rows + row;                             // column-major offset
        out[i] = a[i] + b[i];
    }
}
// ANCHOR_END: kernels

// ANCHOR: mismatched
extern "C" __global__ void add_row_major_x_rows(float* __restrict__ out, const float* __restrict__ a,
                                                const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks rows
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = row * cols + col;                             // row-major offset: lanes cols apart
        out[i] = a[i] + b[i];
    }
}

extern "C" __global__ void add_col_major_x_cols(float* __restrict__ out, const float* __restrict__ a,
                                                const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x(): x walks columns
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = col * rows + row;                             // column-major offset: lanes rows apart
        out[i] = a[i] + b[i];
    }
}
// ANCHOR_END: mismatched

// ANCHOR: ladder
// ---- How fast can it go ----
// out = a + b for row-major (or column-major: the flat index is the same)
// buffers of rows * cols floats, taken to the copy's speed. Each takes
// (out, a, b, rows, cols) like add_row_major and is launched 1D:
// blockDim = (256, 1), gridDim = (min(ceil(rows * cols / (256 * V)), SMs * BLOCKS_PER_SM), 1)
// with V = 1, 4, 16 for v1, v2, v3, SMs the device's multiprocessor count and
// BLOCKS_PER_SM = 8 (ktrav::ladder::BLOCKS_PER_SM); any grid of at least one block is correct.

// v1: one 1D grid-stride loop over the flat index: x walks the stride-1 axis, no gridDim.y limit, 64-bit indices.
extern "C" __global__ void __launch_bounds__(256) add_v1_grid_stride(float* __restrict__ out, const float* __restrict__ a,
                                                                    const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t n = rows * cols;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        out[i] = a[i] + b[i];
    }
}

// v2: float4 accesses: three 16-byte accesses per four elements instead of twelve 4-byte ones; scalar tail.
// Falls back to v1's loop when any buffer is not 16-byte aligned.
extern "C" __global__ void __launch_bounds__(256) add_v2_float4(float* __restrict__ out, const float* __restrict__ a,
                                                               const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t n = rows * cols;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if ((((size_t)out | (size_t)a | (size_t)b) & 15) != 0) {
        for (size_t i = tid; i < n; i += stride) out[i] = a[i] + b[i];
        return;
    }
    const size_t nv = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (size_t i = tid; i < nv; i += stride) {
        const float4 x = a4[i], y = b4[i];
        o4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (size_t i = 4 * nv + tid; i < n; i += stride) out[i] = a[i] + b[i];
}

// v3: four rounds of v2 per iteration, all eight float4 loads issued first (128 bytes in flight per thread).
extern "C" __global__ void __launch_bounds__(256) add_v3_float4_x4(float* __restrict__ out, const float* __restrict__ a,
                                                                  const float* __restrict__ b, size_t rows, size_t cols) {
    const size_t n = rows * cols;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if ((((size_t)out | (size_t)a | (size_t)b) & 15) != 0) {
        for (size_t i = tid; i < n; i += stride) out[i] = a[i] + b[i];
        return;
    }
    const size_t nv = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* o4 = reinterpret_cast<float4*>(out);
    size_t i = tid;
    for (; i + 3 * stride < nv; i += 4 * stride) {
        float4 x[4], y[4];
#pragma unroll
        for (unsigned k = 0; k < 4; ++k) {
            x[k] = a4[i + k * stride];
            y[k] = b4[i + k * stride];
        }
#pragma unroll
        for (unsigned k = 0; k < 4; ++k) {
            o4[i + k * stride] = make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w);
        }
    }
    for (; i < nv; i += stride) {
        const float4 x = a4[i], y = b4[i];
        o4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (size_t k = 4 * nv + tid; k < n; k += stride) out[k] = a[k] + b[k];
}
// ANCHOR_END: ladder
