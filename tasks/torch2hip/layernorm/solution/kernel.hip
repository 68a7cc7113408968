// LayerNorm: y[r, c] = (x[r, c] - mean_r) * rsqrt(var_r + eps) * w[c] + b[c], float32.
//
// One kernel instead of PyTorch's row statistics and elementwise passes: y is written once; x
// is read three times per row (mean, variance, output), from cache unless the row is very long.
// Short rows (<= 1024) get a group of 4..32 lanes each, reduced with shuffles; longer rows a
// block each, reduced through shared memory.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

// Sums over 32-lane groups, as the partials below are indexed (threadIdx.x / 32): a whole 64-wide
// wavefront's sum would be counted twice on wave64 GPUs (found on HIP-CPU, results/hip-cpu-2026-11-29.md).
__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor(v, off, 32);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor(v, off, 32));
    return v;
}
// Reductions over a group of G lanes (G divides 32, groups aligned inside one warp).
template <int G> __device__ __forceinline__ float group_sum(float v) {
    for (int off = G / 2; off > 0; off >>= 1) v += __shfl_xor(v, off, G);
    return v;
}
template <int G> __device__ __forceinline__ float group_max(float v) {
    for (int off = G / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor(v, off, G));
    return v;
}
// Block-wide reductions (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
__device__ float block_sum(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? partial[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) partial[0] = v;
    }
    __syncthreads();
    v = partial[0];
    __syncthreads();  // partial[] may be reused right after
    return v;
}
__device__ float block_max(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_max(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? partial[lane] : -INFINITY;
        v = warp_max(v);
        if (lane == 0) partial[0] = v;
    }
    __syncthreads();
    v = partial[0];
    __syncthreads();
    return v;
}

struct BlockR {
    __device__ static float sum(float v) { return block_sum(v); }
    __device__ static float max(float v) { return block_max(v); }
};
template <int G> struct GroupR {
    __device__ static float sum(float v) { return group_sum<G>(v); }
    __device__ static float max(float v) { return group_max<G>(v); }
};

// One row: mean, then the variance of the centred values (two-pass: no cancellation as in
// E[x^2] - E[x]^2), then the output. The row is re-read from cache for short rows.
template <class R>
__device__ __forceinline__ void row_op(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b, int64_t rows, int64_t cols, float eps, float* __restrict__ y, int64_t row, int lane, int nlanes, bool write) {
    const float* xr = x + row * cols;
    float s = 0.0f;
#pragma unroll 4
    for (int64_t j = lane; j < cols; j += nlanes) s += xr[j];
    const float mean = R::sum(s) / (float)cols;
    float v = 0.0f;
#pragma unroll 4
    for (int64_t j = lane; j < cols; j += nlanes) { const float d = xr[j] - mean; v += d * d; }
    const float rstd = rsqrtf(R::sum(v) / (float)cols + eps);
    if (!write) return;
    float* yr = y + row * cols;
#pragma unroll 4
    for (int64_t j = lane; j < cols; j += nlanes) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
}

// ---- layouts: G lanes per row (short rows) or one block per row ------------------------------
template <int G>
__global__ void row_group(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b, int64_t rows, int64_t cols, float eps, float* __restrict__ y) {
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    // Lanes past the last row redo row rows-1 without writing: every lane must reach the shuffles.
    const bool write = r < rows;
    row_op<GroupR<G>>(x, w, b, rows, cols, eps, y, write ? r : rows - 1, (int)(threadIdx.x % G), G, write);
}

__global__ void __launch_bounds__(1024) row_block(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b, int64_t rows, int64_t cols, float eps, float* __restrict__ y) {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
        row_op<BlockR>(x, w, b, rows, cols, eps, y, r, (int)threadIdx.x, (int)blockDim.x, true);
}

template <int G>
static void launch_group(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b, int64_t rows, int64_t cols, float eps, float* __restrict__ y, hipStream_t st) {
    const int threads = 256;
    const int64_t rows_per_block = threads / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    row_group<G><<<(unsigned)blocks, threads, 0, st>>>(x, w, b, rows, cols, eps, y);
}

extern "C" int launch(const float* x,       // [rows, cols]
                      const float* w,       // [cols] weight
                      const float* b,       // [cols] bias
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,             // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (cols <= 1024) {
        // A group of lanes per row, sized to the row, so short rows do not idle most of a warp.
        if (cols <= 16)      launch_group<4>(x, w, b, rows, cols, eps, y, st);
        else if (cols <= 32) launch_group<8>(x, w, b, rows, cols, eps, y, st);
        else if (cols <= 64) launch_group<16>(x, w, b, rows, cols, eps, y, st);
        else                 launch_group<32>(x, w, b, rows, cols, eps, y, st);
    } else {
        // Few rows: big blocks so each row keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        row_block<<<(unsigned)blocks, threads, 0, st>>>(x, w, b, rows, cols, eps, y);
    }
    return hipGetLastError() != hipSuccess;
}
