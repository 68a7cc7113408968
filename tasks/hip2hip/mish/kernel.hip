// Mish, y = x * tanh(softplus(x)), float32.
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel: one element per thread in 256-thread blocks, float32 math
// through the standard library (no vector loads, no grid-stride loop).
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void mish_kernel(const float* x, float* y, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = x[i];
    const float sp = v > 20.0f ? v : log1pf(expf(v));   // softplus, threshold 20 as PyTorch's
    y[i] = v * tanhf(sp);
}

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    if (n <= 0) return 0;
    const int threads = 256;
    mish_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0, (hipStream_t)stream>>>(x, y, n);
    return hipGetLastError() != hipSuccess;
}
