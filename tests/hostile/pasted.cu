// must get: refused
// Token pasting assembles __has_include out of pieces no one name shows.
#define CAT(a, b) a##b
#if CAT(__has_, include)("@TOKEN@")
#define FOUND 1
#endif
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
