// A right K.3 'copy' that prints a line from every thread of its first
// 16384 elements: far more than a check shows, in little time. (A printf in
// every thread is no right kernel on the big shapes: on the H200, with
// driver 580.159, a million printing threads take more than 40 s to finish,
// outside any checker; see bench/lab-load/printf_alone.cu.)
#include <cstdio>
extern "C" __global__ void copy_x_to_col(float* __restrict__ dst, const float* __restrict__ src,
                                         size_t rows, size_t cols) {
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols) {
        dst[row * cols + col] = src[row * cols + col];
        if (row * cols + col < 16384) {
            printf("copied %llu %llu\n", (unsigned long long)row, (unsigned long long)col);
        }
    }
}
