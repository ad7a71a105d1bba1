// math.h for NVRTC: the CUDA math functions are built in.
#pragma once
