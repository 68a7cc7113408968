// Log-softmax over each row of a row-major float32 [rows, cols] matrix:
// y[r, c] = x[r, c] - max_r - log(sum_k exp(x[r, k] - max_r)). See README.md for the semantics
// and the argument layout.
//
// Baseline: a straightforward first kernel, three passes over each row of x (the row max, the
// sum of exp(x - max), then y = x - max - log(sum)), y written once:
//   * rows of up to 1024 columns: one warp per row (8 rows per 256-thread block), the two
//     reductions by warp shuffles;
//   * longer rows: one 512-thread block per row, shuffles within each warp and shared memory
//     across the warps.
// Correct for any shape, but not tuned: x is read three times (the second and third reads mostly
// hit the caches), every load is a scalar float, and a handful of very long rows leave most of
// the GPU idle.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#define WARP_ROWS 8   // rows (warps) per 256-thread block in the short-row path
#define BLOCK 512     // threads per row in the long-row path

__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off, 32));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off, 32);
    return v;
}

// Block-wide reductions (blockDim.x == BLOCK); every thread returns the result.
__device__ __forceinline__ float block_max(float v) {
    __shared__ float s[BLOCK / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_max(v);
    if (lane == 0) s[warp] = v;
    __syncthreads();
    v = warp_max(lane < BLOCK / 32 ? s[lane] : -INFINITY);
    __syncthreads();  // s is free again for a next call
    return v;
}
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float s[BLOCK / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) s[warp] = v;
    __syncthreads();
    v = warp_sum(lane < BLOCK / 32 ? s[lane] : 0.0f);
    __syncthreads();
    return v;
}

__global__ void log_softmax_warp_per_row(const float* x, float* y, int64_t rows, int64_t cols) {
    const int64_t r = (int64_t)blockIdx.x * WARP_ROWS + threadIdx.x / 32;
    if (r >= rows) return;  // the whole warp leaves together
    const int lane = threadIdx.x % 32;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;  // subtract the row max so expf never overflows
    for (int64_t j = lane; j < cols; j += 32) m = fmaxf(m, xr[j]);
    m = warp_max(m);
    float s = 0.0f;
    for (int64_t j = lane; j < cols; j += 32) s += expf(xr[j] - m);
    const float log_s = logf(warp_sum(s));
    for (int64_t j = lane; j < cols; j += 32) yr[j] = xr[j] - m - log_s;
}

__global__ void log_softmax_block_per_row(const float* x, float* y, int64_t rows, int64_t cols) {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;
        float m = -INFINITY;
        for (int64_t j = threadIdx.x; j < cols; j += BLOCK) m = fmaxf(m, xr[j]);
        m = block_max(m);
        float s = 0.0f;
        for (int64_t j = threadIdx.x; j < cols; j += BLOCK) s += expf(xr[j] - m);
        const float log_s = logf(block_sum(s));
        for (int64_t j = threadIdx.x; j < cols; j += BLOCK) yr[j] = xr[j] - m - log_s;
    }
}

extern "C" int launch(const float* x, int64_t rows, int64_t cols, float* y, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (cols <= 1024) {
        const int64_t blocks = (rows + WARP_ROWS - 1) / WARP_ROWS;
        log_softmax_warp_per_row<<<(unsigned)blocks, WARP_ROWS * 32, 0, st>>>(x, y, rows, cols);
    } else {
        const int64_t blocks = rows < 2147483647 ? rows : 2147483647;
        log_softmax_block_per_row<<<(unsigned)blocks, BLOCK, 0, st>>>(x, y, rows, cols);
    }
    return cudaGetLastError() != cudaSuccess;
}
