// stdlib.h for NVRTC: abs is built in; nothing else of it runs on a device.
#pragma once
