// Hardswish, y = x * relu6(x + 3) / 6, float32.
//
// Memory-bound: the work is moving the bytes. Each thread moves float4s (16-byte accesses) when
// x and y are 16-byte aligned, in a grid-stride loop over a grid capped at 65536 blocks, and a
// scalar tail finishes the last n % 4 elements.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float hardswish(float x) {
    return x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f;  // the same operation order as PyTorch
}

__global__ void hardswish_vec4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = hardswish(v.x); v.y = hardswish(v.y); v.z = hardswish(v.z); v.w = hardswish(v.w);
        y[i] = v;
    }
}

__global__ void hardswish_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
    const int64_t i = start + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = hardswish(x[i]);
}

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    if (n <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int threads = 256;
    const bool aligned = ((uintptr_t)x % 16 == 0) && ((uintptr_t)y % 16 == 0);
    const int64_t n4 = aligned ? n / 4 : 0;
    if (n4 > 0) {
        int64_t blocks = (n4 + threads - 1) / threads;
        if (blocks > 65536) blocks = 65536;  // grid-stride beyond: enough blocks to fill any GPU
        hardswish_vec4<<<(unsigned)blocks, threads, 0, st>>>((const float4*)x, (float4*)y, n4);
    }
    const int64_t rest = n - n4 * 4;
    if (rest > 0)
        hardswish_scalar<<<(unsigned)((rest + threads - 1) / threads), threads, 0, st>>>(x, y, n4 * 4, n);
    return cudaGetLastError() != cudaSuccess;
}
