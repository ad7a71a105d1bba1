// cuda_runtime.h for NVRTC where no CUDA include folder is installed: a
// kernel needs none of it (the built-in types, threadIdx, __syncthreads and
// printf come with NVRTC); the host API it declares is not for device code.
#pragma once
#include <stddef.h>
#include <stdint.h>
