// Test-only shim (see hip_runtime.h): HIP's float16 header maps onto CUDA's; __half, __half2 and
// their conversions have the same names on both. cuda_fp16.h declares its own __shfl_xor
// overloads, so the shim's __shfl_xor macro is held back while it is read.
#pragma once
#pragma push_macro("__shfl_xor")
#undef __shfl_xor
#include <cuda_fp16.h>
#pragma pop_macro("__shfl_xor")
