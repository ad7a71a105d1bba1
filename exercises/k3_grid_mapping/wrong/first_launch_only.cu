// A wrong kernel for the K.3 lab exercise 'copy' (a kernel that cheats the
// clock). It copies on the first launch in its module and returns at once on
// every later one: a device-global count of blocks tells it whether a whole
// launch has already run. Every shape is checked with the kernel loaded
// afresh, so every shape passes; the timing run launches it again and again.
// expect: copy: passes every shape; fails its timing

__device__ unsigned long long blocks_started = 0;

extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    __shared__ bool skip;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        const unsigned long long blocks = (unsigned long long)gridDim.x * gridDim.y;
        skip = atomicAdd(&blocks_started, 1ULL) >= blocks;
    }
    __syncthreads();
    if (skip) {
        return;
    }
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols) {
        dst[row * cols + col] = src[row * cols + col];
    }
}
