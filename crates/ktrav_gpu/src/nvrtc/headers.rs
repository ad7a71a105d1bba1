//! The headers NVRTC is handed in memory: NVRTC ships none of the C and
//! C++ library headers a student's file usually starts with, so these
//! small ones stand in for them. Each declares only what device code can
//! use (`printf`, `assert` and the math functions are NVRTC built-ins;
//! these add the integer types, the limits, and the `std::` names).

/// The C and C++ library headers a kernel may include.
pub const STANDARD: &[(&str, &str)] = &[
    ("algorithm", include_str!("include/algorithm")),
    ("assert.h", include_str!("include/assert.h")),
    ("cassert", include_str!("include/cassert")),
    ("cfloat", include_str!("include/cfloat")),
    ("climits", include_str!("include/climits")),
    ("cmath", include_str!("include/cmath")),
    ("cstddef", include_str!("include/cstddef")),
    ("cstdint", include_str!("include/cstdint")),
    ("cstdio", include_str!("include/cstdio")),
    ("cstdlib", include_str!("include/cstdlib")),
    ("float.h", include_str!("include/float.h")),
    ("limits.h", include_str!("include/limits.h")),
    ("math.h", include_str!("include/math.h")),
    ("stddef.h", include_str!("include/stddef.h")),
    ("stdint.h", include_str!("include/stdint.h")),
    ("stdio.h", include_str!("include/stdio.h")),
    ("stdlib.h", include_str!("include/stdlib.h")),
];

/// `cuda_runtime.h` and its kin, so that the usual first line compiles
/// without a CUDA include folder (none is given to NVRTC).
pub const CUDA_FALLBACK: &[(&str, &str)] = &[
    ("cuda_runtime.h", include_str!("include/cuda_runtime.h")),
    ("cuda_runtime_api.h", include_str!("include/cuda_runtime_api.h")),
    ("device_launch_parameters.h", include_str!("include/device_launch_parameters.h")),
];
