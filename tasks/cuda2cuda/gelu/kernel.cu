// GELU (tanh approximation): y[i] = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), float32.
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel: one element per thread in 256-thread blocks, float32 math
// through the standard library (no vector loads, no grid-stride loop).
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void gelu_kernel(const float* x, float* y, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = x[i];
    const float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    y[i] = 0.5f * v * (1.0f + tanhf(u));
}

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    if (n <= 0) return 0;
    const int threads = 256;
    gelu_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(x, y, n);
    return cudaGetLastError() != cudaSuccess;
}
