// Row mean: y[r] = mean(x[r, :]), float32. See README.md for the semantics and the argument layout.
//
// Correct but slow: one block of 128 threads per row, whatever the row length (most threads idle
// on short rows, one block alone on a very long row), scalar loads, the sum reduced by a
// shared-memory tree with a barrier per step.
#include <hip/hip_runtime.h>
#include <stdint.h>

#define THREADS 128

__global__ void row_mean_naive(const float* x, int64_t cols, float* y) {
    __shared__ float buf[THREADS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) s += xr[j];
    buf[threadIdx.x] = s;
    __syncthreads();
    for (int step = THREADS / 2; step > 0; step >>= 1) {
        if ((int)threadIdx.x < step) buf[threadIdx.x] += buf[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[blockIdx.x] = buf[0] / (float)cols;
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    // rows <= 64M fits gridDim.x (up to 2^31 - 1).
    row_mean_naive<<<(unsigned)rows, THREADS, 0, (hipStream_t)stream>>>(x, cols, y);
    return hipGetLastError() != hipSuccess;
}
