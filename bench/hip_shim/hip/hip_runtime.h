// Test-only shim: lets nvcc compile the HIP task sources (kernel.hip) for an NVIDIA GPU, so
// bench/check_native_tasks.py can check their logic on the CUDA machine. It maps only the HIP
// names those sources use. It runs them with 32-wide warps, so it does not exercise the 64-wide
// wavefront paths; those are checked by reading the code and by the hipcc compile.
#pragma once
#include <cuda_runtime.h>

#define hipStream_t cudaStream_t
#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipGetLastError cudaGetLastError
#define hipGetDevice cudaGetDevice
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize

// HIP shuffles take no lane mask; every lane of the warp takes part. (CUDA still declares the
// old mask-less __shfl_xor, which sm_70+ cannot use, so a macro redirects the calls instead.)
#define __shfl_xor(var, lane_mask, ...) __shfl_xor_sync(0xffffffffu, var, lane_mask, ##__VA_ARGS__)
#define __shfl_up(var, delta, ...) __shfl_up_sync(0xffffffffu, var, delta, ##__VA_ARGS__)
#define __shfl(var, src, ...) __shfl_sync(0xffffffffu, var, src, ##__VA_ARGS__)
