// Sigmoid: y[i] = 1 / (1 + exp(-x)), float32. See README.md.
//
// Correct but slow: one element per thread in 64-thread blocks, scalar 4-byte accesses, and the
// math in double precision (slow on most GPUs).
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void sigmoid_naive(const float* x, float* y, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double v = (double)x[i];
    y[i] = (float)(1.0 / (1.0 + exp(-v)));
}

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    if (n <= 0) return 0;
    const int threads = 64;
    sigmoid_naive<<<(unsigned)((n + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(x, y, n);
    return cudaGetLastError() != cudaSuccess;
}
