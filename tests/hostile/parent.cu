// must get: refused
// A path climbing out of the folder grade runs in.
#include "@UP_TOKEN@"
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
