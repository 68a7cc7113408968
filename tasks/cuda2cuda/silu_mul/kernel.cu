// Scaled SwiGLU: out[r, j] = silu(x[r, j]) * x[r, hidden + j] * scale, float16. See README.md.
//
// Correct but slow: one output per thread in 64-thread blocks, scalar 2-byte accesses, a 64-bit
// division per element, and the math in double precision through exp (slow on most GPUs).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <math.h>

__global__ void silu_mul_naive(const __half* x, __half* out, int64_t rows, int64_t hidden, float scale) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * hidden) return;
    const int64_t r = i / hidden, j = i % hidden;
    const double g = (double)__half2float(x[r * 2 * hidden + j]);
    const double u = (double)__half2float(x[r * 2 * hidden + hidden + j]);
    out[i] = __float2half_rn((float)(g / (1.0 + exp(-g)) * u * (double)scale));
}

extern "C" int launch(const __half* x,  // [rows, 2 * hidden]
                      int64_t rows,
                      int64_t hidden,
                      float scale,
                      __half* out,      // [rows, hidden] output
                      void* stream) {
    const int64_t n = rows * hidden;
    if (n <= 0) return 0;
    const int threads = 64;
    silu_mul_naive<<<(unsigned)((n + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        x, out, rows, hidden, scale);
    return cudaGetLastError() != cudaSuccess;
}
