// assert.h for NVRTC: assert is a device built-in.
#pragma once
