// One printf per thread on its own, outside the checker: how long the driver
// takes to print N lines (usage: printf_alone N; nvcc -arch=sm_90 -O2).
#include <cstdio>
#include <cstdlib>
#include <chrono>
__global__ void k(int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) printf("copied %d %d\n", i / 1000, i % 1000); }
int main(int argc, char** argv) {
    int n = atoi(argv[1]);
    cudaFree(0);
    auto t0 = std::chrono::steady_clock::now();
    k<<<(n + 255) / 256, 256>>>(n);
    cudaError_t e = cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    fflush(stdout);
    fprintf(stderr, "n=%d sync %.3f s (%s)\n", n, std::chrono::duration<double>(t1 - t0).count(), cudaGetErrorString(e));
}
