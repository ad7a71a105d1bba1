// must get: refused
// The digraph for the hash.
%:include "@TOKEN@"
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
