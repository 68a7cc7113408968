// Test-only shim: lets nvcc compile HIP sources for an NVIDIA GPU: the HIP task sources (kernel.hip,
// through ./hipcc, so bench/judge_gpu.py suite --hip-on-cuda checks their logic on a CUDA machine)
// and AKA's HIP PyTorch extensions (aka_compile_check.sh; with ATen/hip, c10/hip and hipblas here:
// docs/importers.md, "AgentKernelArena's HIP tasks"). It maps only the HIP names those sources use.
// Kernels run with 32-wide warps: 64-wide wavefront paths are checked by reading the code and by
// the hipcc compile, never here. Nothing in the judge uses it.
#pragma once
#include <cuda_runtime.h>
// before the __shfl* macros below: these headers declare overloads of those names
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define hipStream_t cudaStream_t
#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetDevice cudaGetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceProp_t cudaDeviceProp
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipGetSymbolAddress cudaGetSymbolAddress
#define HIP_SYMBOL(X) ((const void*)&(X))
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#define HIP_KERNEL_NAME(...) __VA_ARGS__

// HIP shuffles take no lane mask; every lane of the warp takes part. (CUDA still declares the
// old mask-less __shfl_xor, which sm_70+ cannot use, so a macro redirects the calls instead.)
#define __shfl_xor(var, lane_mask, ...) __shfl_xor_sync(0xffffffffu, var, lane_mask, ##__VA_ARGS__)
#define __shfl_up(var, delta, ...) __shfl_up_sync(0xffffffffu, var, delta, ##__VA_ARGS__)
#define __shfl_down(var, delta, ...) __shfl_down_sync(0xffffffffu, var, delta, ##__VA_ARGS__)
#define __shfl(var, src, ...) __shfl_sync(0xffffffffu, var, src, ##__VA_ARGS__)
