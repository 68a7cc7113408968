// Residual add fused with RMSNorm: h = x + residual, y = h * rsqrt(mean(h[r, :]^2) + eps) * weight,
// float32. See README.md for the semantics and the argument layout.
//
// Correct but slow: one block of 128 threads per row, whatever the row length (most threads idle
// on short rows, one block alone on a very long row); a first pass writes h and sums its squares,
// a second one reads h back, the sum reduced by a shared-memory tree with a barrier per step.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 128

__global__ void add_rmsnorm_naive(const float* x, const float* r, const float* w, int64_t cols,
                                  float eps, float* y, float* h) {
    __shared__ float buf[THREADS];
    const int64_t base = (int64_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) {
        const float v = x[base + j] + r[base + j];
        h[base + j] = v;
        ss += v * v;
    }
    buf[threadIdx.x] = ss;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    const float mean_sq = buf[0] / (float)cols;
    // Each thread reads back only the h elements it wrote itself.
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) y[base + j] = h[base + j] / sqrtf(mean_sq + eps) * w[j];
}

extern "C" int launch(const float* x,         // [rows, cols]
                      const float* residual,  // [rows, cols]
                      const float* weight,    // [cols]
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,               // [rows, cols] output 1
                      float* h,               // [rows, cols] output 2: x + residual
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    // rows <= 64M fits gridDim.x (up to 2^31 - 1).
    add_rmsnorm_naive<<<(unsigned)rows, THREADS, 0, (cudaStream_t)stream>>>(x, residual, weight, cols, eps, y, h);
    return cudaGetLastError() != cudaSuccess;
}
