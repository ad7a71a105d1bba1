// must get: refused
// The directive split by a line splice, with a comment after the hash.
#/* hidden */ inc\
lude "@TOKEN@"
extern "C" __global__ void copy_x_to_col(float* dst, const float* src, size_t rows, size_t cols) {}
