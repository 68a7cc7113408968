// Row-wise softmax of a row-major float32 [rows, cols] matrix: y[r, :] = softmax(x[r, :]).
//
// Baseline: one block per row, computed in place in y with three separate passes over the
// row in global memory:
//   1. copy x into y and find the row max (each thread a strided partial max, then a
//      shared-memory tree reduction),
//   2. y = exp(y - max), and the sum of those values (reduced the same way),
//   3. y = y / sum.
// Correct for any shape, but not tuned: y is written three times and read twice, every load is a
// scalar float, the reductions go through shared memory with a __syncthreads() per step, narrow
// rows leave most of a block idle, and a handful of very long rows leave most of the GPU idle.
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>

// Tree reduction over the block through shared memory (red holds blockDim.x floats; blockDim.x
// is a power of two). Every thread returns the result.
__device__ float block_reduce_max(float v, float* red) {
    const int tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (int s = 1; s < (int)blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    const float r = red[0];
    __syncthreads();  // red is reused by the next reduction
    return r;
}

__device__ float block_reduce_sum(float v, float* red) {
    const int tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (int s = 1; s < (int)blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) red[tid] = red[tid] + red[tid + s];
        __syncthreads();
    }
    const float r = red[0];
    __syncthreads();
    return r;
}

// One block per row (grid-stride over rows in case rows exceeds the grid limit).
__global__ void softmax_row_per_block(const float* x, float* y, int64_t rows, int64_t cols) {
    extern __shared__ float red[];  // blockDim.x floats
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;

        float m = -INFINITY;  // subtract the row max so expf never overflows
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
            const float v = xr[j];
            yr[j] = v;
            m = fmaxf(m, v);
        }
        m = block_reduce_max(m, red);

        float s = 0.0f;
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
            const float e = expf(yr[j] - m);
            yr[j] = e;
            s += e;
        }
        s = block_reduce_sum(s, red);

        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = yr[j] / s;
    }
}

extern "C" int launch(const float* x, int64_t rows, int64_t cols, float* y, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    // Block size: the smallest power of two >= cols, between 32 and 512.
    int threads = 32;
    while (threads < cols && threads < 512) threads *= 2;
    const int64_t blocks = rows < 2147483647 ? rows : 2147483647;
    softmax_row_per_block<<<(unsigned)blocks, threads, threads * sizeof(float), (hipStream_t)stream>>>(
        x, y, rows, cols);
    return hipGetLastError() != hipSuccess;
}
