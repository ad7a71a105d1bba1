// Appendix K.3: the same 2D copy under the two ways of mapping a grid onto
// a rows x cols row-major matrix.
//
//   copy_x_to_col  threadIdx.x walks columns: launch gridDim = (ceil(cols / blockDim.x),
//                  ceil(rows / blockDim.y)). Neighbouring lanes touch neighbouring
//                  addresses.
//   copy_x_to_row  threadIdx.x walks rows: launch gridDim = (ceil(rows / blockDim.x),
//                  ceil(cols / blockDim.y)). Neighbouring lanes are `cols` elements apart.
//
// Both cover every element exactly once; only the second wastes bandwidth.
// Each kernel has a Rust twin of the same name and parameters
// (`k3_grid_mapping::copy_x_to_col`, `copy_x_to_row`); the index math below
// is `k3_grid_mapping::Mapping::element`, line for line.

// ANCHOR: kernels
extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    if (row < rows && col < cols) {                                    // both axes guarded
        const size_t i = row * cols + col;                             // row-major offset
        dst[i] = src[i];
    }
}

extern "C" __global__ void copy_x_to_row(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  // t.global_x()
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;  // t.global_y()
    if (row < rows && col < cols) {
        const size_t i = row * cols + col;
        dst[i] = src[i];
    }
}
// ANCHOR_END: kernels

// ANCHOR: ladder
// ---- How fast can it go ----
// The same copy, with x along the contiguous axis taken to its end: a row-major
// rows x cols matrix is one run of rows * cols floats, so x can walk the flat
// index. Each version takes (dst, src, rows, cols) like the kernels above and is
// launched 1D: blockDim = (256, 1), gridDim = (min(ceil(rows * cols / (256 * V)),
// SMs * BLOCKS_PER_SM), 1) with V = 1, 4, 16 for v1, v2, v3, SMs the device's
// multiprocessor count and BLOCKS_PER_SM = 8 (ktrav::ladder::BLOCKS_PER_SM); any
// grid of at least one block is correct, since every thread strides by the
// whole grid. Indices are 64-bit.

// v1: one 1D grid-stride loop over the flat index: no gridDim.y limit, no 2D index math, any number of elements.
extern "C" __global__ void __launch_bounds__(256) copy_v1_grid_stride(float* __restrict__ dst, const float* __restrict__ src,
                                                                     size_t rows, size_t cols) {
    const size_t n = rows * cols;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        dst[i] = src[i];
    }
}

// v2: float4 accesses: one 16-byte load and store per thread per round, a quarter of the instructions; scalar tail.
// Falls back to v1's loop when either buffer is not 16-byte aligned.
extern "C" __global__ void __launch_bounds__(256) copy_v2_float4(float* __restrict__ dst, const float* __restrict__ src,
                                                                size_t rows, size_t cols) {
    const size_t n = rows * cols;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if ((((size_t)dst | (size_t)src) & 15) != 0) {
        for (size_t i = tid; i < n; i += stride) dst[i] = src[i];
        return;
    }
    const size_t nv = n / 4;
    const float4* s4 = reinterpret_cast<const float4*>(src);
    float4* d4 = reinterpret_cast<float4*>(dst);
    for (size_t i = tid; i < nv; i += stride) d4[i] = s4[i];
    for (size_t i = 4 * nv + tid; i < n; i += stride) dst[i] = src[i];
}

// v3: four float4 loads issued before their four stores (64 bytes in flight per thread) to cover memory latency.
extern "C" __global__ void __launch_bounds__(256) copy_v3_float4_x4(float* __restrict__ dst, const float* __restrict__ src,
                                                                   size_t rows, size_t cols) {
    const size_t n = rows * cols;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if ((((size_t)dst | (size_t)src) & 15) != 0) {
        for (size_t i = tid; i < n; i += stride) dst[i] = src[i];
        return;
    }
    const size_t nv = n / 4;
    const float4* s4 = reinterpret_cast<const float4*>(src);
    float4* d4 = reinterpret_cast<float4*>(dst);
    size_t i = tid;
    for (; i + 3 * stride < nv; i += 4 * stride) {
        const float4 a = s4[i], b = s4[i + stride], c = s4[i + 2 * stride], d = s4[i + 3 * stride];
        d4[i] = a;
        d4[i + stride] = b;
        d4[i + 2 * stride] = c;
        d4[i + 3 * stride] = d;
    }
    for (; i < nv; i += stride) d4[i] = s4[i];
    for (size_t k = 4 * nv + tid; k < n; k += stride) dst[k] = src[k];
}
// ANCHOR_END: ladder
