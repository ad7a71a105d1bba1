// stddef.h for NVRTC: size_t and NULL are built in; ptrdiff_t and offsetof.
#pragma once
typedef long ptrdiff_t;
#ifndef offsetof
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
