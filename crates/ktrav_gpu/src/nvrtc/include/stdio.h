// stdio.h for NVRTC: printf is a device built-in, so nothing is needed.
#pragma once
