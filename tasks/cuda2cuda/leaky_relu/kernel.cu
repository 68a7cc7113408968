// LeakyReLU: y[i] = x if x >= 0 else negative_slope * x, float32. See README.md.
//
// Correct but slow: one element per thread in 64-thread blocks, scalar 4-byte accesses, and the
// math in double precision (the product of two floats is exact in double, so rounding it back
// gives the float32 product).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void leaky_relu_naive(const float* x, float* y, int64_t n, float negative_slope) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double v = (double)x[i];
    y[i] = (float)(v >= 0.0 ? v : v * (double)negative_slope);
}

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float negative_slope,
                      float* y,         // [n] output
                      void* stream) {
    if (n <= 0) return 0;
    const int threads = 64;
    leaky_relu_naive<<<(unsigned)((n + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(x, y, n, negative_slope);
    return cudaGetLastError() != cudaSuccess;
}
