// Softplus, y = log(1 + exp(x)) with y = x past the threshold 20 (as F.softplus), float32.
//
// Eager PyTorch already runs this as one elementwise kernel, so the work is all memory traffic:
// each thread moves float4s (16-byte accesses) when x and y are 16-byte aligned, blocks stride
// over the vector, and a scalar tail finishes. The math stays float32 expf / log1pf (a few ulps
// from PyTorch's); __expf-style intrinsics would not keep the 1e-5 tolerance near x = 0.
#include <hip/hip_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float softplus(float x) {
    return x > 20.0f ? x : log1pf(expf(x));  // expf underflows to 0 for x << 0: y = 0, as PyTorch
}

__global__ void softplus_vec4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = softplus(v.x); v.y = softplus(v.y); v.z = softplus(v.z); v.w = softplus(v.w);
        y[i] = v;
    }
}

__global__ void softplus_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
    const int64_t i = start + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = softplus(x[i]);
}

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    if (n <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    const int threads = 256;
    const bool aligned = ((uintptr_t)x % 16 == 0) && ((uintptr_t)y % 16 == 0);
    const int64_t n4 = aligned ? n / 4 : 0;
    if (n4 > 0) {
        int64_t blocks = (n4 + threads - 1) / threads;
        if (blocks > 65536) blocks = 65536;  // grid-stride beyond: enough blocks to fill any GPU
        softplus_vec4<<<(unsigned)blocks, threads, 0, st>>>((const float4*)x, (float4*)y, n4);
    }
    const int64_t rest = n - n4 * 4;
    if (rest > 0)
        softplus_scalar<<<(unsigned)((rest + threads - 1) / threads), threads, 0, st>>>(x, y, n4 * 4, n);
    return hipGetLastError() != hipSuccess;
}
