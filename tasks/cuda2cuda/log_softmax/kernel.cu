// Log-softmax over each row: y[r, c] = x[r, c] - max_r - log(sum_k exp(x[r, k] - max_r)), float32.
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one block of 128 threads per row, whatever the row length; three passes over
// the row (max, sum of exp, output), each reduced by a shared-memory tree with a barrier per step.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

#define THREADS 128

__global__ void log_softmax_naive(const float* x, int64_t cols, float* y) {
    __shared__ float buf[THREADS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) m = fmaxf(m, xr[j]);
    buf[threadIdx.x] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }
    m = buf[0];
    __syncthreads();
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) sum += expf(xr[j] - m);
    buf[threadIdx.x] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    sum = buf[0];
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) yr[j] = xr[j] - m - logf(sum);
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    log_softmax_naive<<<(unsigned)rows, THREADS, 0, (cudaStream_t)stream>>>(x, cols, y);
    return cudaGetLastError() != cudaSuccess;
}
