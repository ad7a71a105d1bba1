// device_launch_parameters.h for NVRTC where no CUDA include folder is installed: see cuda_runtime.h.
#pragma once
#include <cuda_runtime.h>
