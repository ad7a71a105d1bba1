// A kernel for testing the GPU runner itself (ktrav_gpu): every in-bounds
// thread writes a value that encodes its own coordinates, so a missing,
// duplicated or misplaced write is visible in the result.

extern "C" __global__ void fill_coords(int* out, long long rows, long long cols)
{
    long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        out[row * cols + col] = (int)(row * 1000 + col);
    }
}
