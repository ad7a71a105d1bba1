// must get: refused
// The reference solution, relative to the repository root grade runs in.
#include "kernels/k3_grid_mapping.cu"
