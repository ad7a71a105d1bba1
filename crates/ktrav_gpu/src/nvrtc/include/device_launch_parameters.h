// device_launch_parameters.h for NVRTC, handed over in memory: see cuda_runtime.h.
#pragma once
#include <cuda_runtime.h>
