// must get: refused
// Asking whether a file exists tells a bit of the grader's machine.
#if __has_include("@TOKEN@")
#define FOUND 1
#endif
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
