// Cross-entropy per row: loss[r] = logsumexp(x[r, :]) - x[r, target[r]], float32 (reduction 'none').
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel: one 256-thread block per row, two passes over the row (max,
// then sum of exp), each thread a strided slice, shared-memory tree reductions.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

#define THREADS 256

__global__ void cross_entropy_block_per_row(const float* x, const int64_t* target, int64_t cols, float* loss) {
    __shared__ float red[THREADS];
    const int64_t r = blockIdx.x;
    const float* xr = x + r * cols;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) m = fmaxf(m, xr[j]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) sum += expf(xr[j] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) loss[r] = m + logf(red[0]) - xr[target[r]];
}

extern "C" int launch(const float* x,           // [rows, cols] logits
                      const int64_t* target,    // [rows]
                      int64_t rows, int64_t cols,
                      float* loss,              // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cross_entropy_block_per_row<<<(unsigned)rows, THREADS, 0, (hipStream_t)stream>>>(x, target, cols, loss);
    return hipGetLastError() != hipSuccess;
}
