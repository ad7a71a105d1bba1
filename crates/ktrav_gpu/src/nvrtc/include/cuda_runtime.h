// cuda_runtime.h for NVRTC, handed over in memory as no include folder is:
// a kernel needs none of the real one (the built-in types, threadIdx,
// __syncthreads and printf come with NVRTC); the host API it declares is not
// for device code.
#pragma once
#include <stddef.h>
#include <stdint.h>
