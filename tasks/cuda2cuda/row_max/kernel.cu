// Row maximum: y[r] = max_c x[r, c] over a row-major float32 [rows, cols] matrix. See README.md.
//
// Correct but slow: one 64-thread block per row (grid-stride over rows), scalar loads, and a
// shared-memory tree reduction with a __syncthreads() per step. Narrow rows leave most of a block
// idle; a few very long rows leave most of the GPU idle.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

constexpr int THREADS = 64;

__global__ void row_max_naive(const float* x, float* y, int64_t rows, int64_t cols) {
    __shared__ float red[THREADS];
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        float m = -INFINITY;
        for (int64_t j = threadIdx.x; j < cols; j += THREADS) m = fmaxf(m, x[r * cols + j]);
        red[threadIdx.x] = m;
        __syncthreads();
        for (int s = THREADS / 2; s > 0; s >>= 1) {
            if ((int)threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
            __syncthreads();
        }
        if (threadIdx.x == 0) y[r] = red[0];
        __syncthreads();  // red is reused by the next row
    }
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows,
                      int64_t cols,
                      float* y,         // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    const int64_t blocks = rows < 2147483647 ? rows : 2147483647;
    row_max_naive<<<(unsigned)blocks, THREADS, 0, (cudaStream_t)stream>>>(x, y, rows, cols);
    return cudaGetLastError() != cudaSuccess;
}
