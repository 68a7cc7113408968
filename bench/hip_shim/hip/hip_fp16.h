// Test-only shim (see hip_runtime.h): HIP's float16 header maps onto CUDA's; __half, __half2 and
// their conversions have the same names on both. cuda_fp16.h declares its own __shfl, __shfl_up
// and __shfl_xor overloads, so the shim's macros of those names (hip_runtime.h, when it is
// included first) are held back while it is read.
#pragma once
#pragma push_macro("__shfl_xor")
#pragma push_macro("__shfl_up")
#pragma push_macro("__shfl")
#undef __shfl_xor
#undef __shfl_up
#undef __shfl
#include <cuda_fp16.h>
#pragma pop_macro("__shfl")
#pragma pop_macro("__shfl_up")
#pragma pop_macro("__shfl_xor")
