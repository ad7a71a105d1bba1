// must get: refused
// An absolute path: the grader's own file, quoted in the compiler's log.
#include "@TOKEN@"
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
