// must get: refused
// The same, in angle brackets.
#include <@TOKEN@>
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
