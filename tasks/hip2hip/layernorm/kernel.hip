// LayerNorm: y[r, c] = (x[r, c] - mean_r) * rsqrt(var_r + eps) * w[c] + b[c], float32.
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one block of 128 threads per row, whatever the row length; three passes over
// the row (mean, variance, output), each reduced by a shared-memory tree with a barrier per step.
#include <hip/hip_runtime.h>
#include <stdint.h>

#define THREADS 128

__device__ float tree_sum(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    v = buf[0];
    __syncthreads();
    return v;
}

__global__ void layernorm_naive(const float* x, const float* w, const float* b, int64_t cols,
                                float eps, float* y) {
    __shared__ float buf[THREADS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) s += xr[j];
    const float mean = tree_sum(s, buf) / (float)cols;
    float v = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) v += (xr[j] - mean) * (xr[j] - mean);
    const float var = tree_sum(v, buf) / (float)cols;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS)
        yr[j] = (xr[j] - mean) / sqrtf(var + eps) * w[j] + b[j];
}

extern "C" int launch(const float* x,       // [rows, cols]
                      const float* w,       // [cols] weight
                      const float* b,       // [cols] bias
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,             // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    layernorm_naive<<<(unsigned)rows, THREADS, 0, (hipStream_t)stream>>>(x, w, b, cols, eps, y);
    return hipGetLastError() != hipSuccess;
}
