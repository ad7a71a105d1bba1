// must get: refused
// A header named by a macro, so that no literal path is seen.
#define STR2(x) #x
#define STR(x) STR2(x)
#include STR(@TOKEN@)
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
