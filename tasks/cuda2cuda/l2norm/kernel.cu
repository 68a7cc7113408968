// Row-wise L2 normalisation: y[r, c] = x[r, c] / max(||x[r, :]||_2, eps), float32.
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one block of 128 threads per row, whatever the row length (most threads idle
// on short rows, one block alone on a very long row); two passes over the row (sum of squares,
// output), the sum reduced by a shared-memory tree with a barrier per step.
#include <cuda_runtime.h>
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

__global__ void l2norm_naive(const float* x, int64_t cols, float eps, float* y) {
    __shared__ float buf[THREADS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float ss = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) ss += xr[j] * xr[j];
    const float norm = fmaxf(sqrtf(tree_sum(ss, buf)), eps);
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) yr[j] = xr[j] / norm;
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,         // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    // rows <= 64M fits gridDim.x (up to 2^31 - 1).
    l2norm_naive<<<(unsigned)rows, THREADS, 0, (cudaStream_t)stream>>>(x, cols, eps, y);
    return cudaGetLastError() != cudaSuccess;
}
