// Row mean: y[r] = sum_c x[r, c] / cols, float32.
//
// Memory-bound: x is read once. The lanes per row are sized to it: a group of 4..32 lanes per
// short row (<= 1024), reduced with shuffles, so short rows do not idle most of a warp; a block
// per longer row, reduced through shared memory.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}
// Reductions over a group of G lanes (G divides 32, groups aligned inside one warp).
template <int G> __device__ __forceinline__ float group_sum(float v) {
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off, G);
    return v;
}
template <int G> __device__ __forceinline__ float group_max(float v) {
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off, G));
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

// One row: each lane sums a strided slice (4 independent accumulators keep loads in flight),
// the row's lanes combine, lane 0 writes the mean.
template <class R>
__device__ __forceinline__ void row_op(const float* __restrict__ x, int64_t rows, int64_t cols, float* __restrict__ y, int64_t row, int lane, int nlanes, bool write) {
    const float* xr = x + row * cols;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int64_t j = lane;
    for (; j + 3 * (int64_t)nlanes < cols; j += 4 * (int64_t)nlanes) {
        a0 += xr[j]; a1 += xr[j + nlanes]; a2 += xr[j + 2 * nlanes]; a3 += xr[j + 3 * nlanes];
    }
    for (; j < cols; j += nlanes) a0 += xr[j];
    const float s = R::sum((a0 + a1) + (a2 + a3));
    if (write && lane == 0) y[row] = s / (float)cols;
}

// ---- layouts: G lanes per row (short rows) or one block per row ------------------------------
template <int G>
__global__ void row_group(const float* __restrict__ x, int64_t rows, int64_t cols, float* __restrict__ y) {
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    // Lanes past the last row redo row rows-1 without writing: every lane must reach the shuffles.
    const bool write = r < rows;
    row_op<GroupR<G>>(x, rows, cols, y, write ? r : rows - 1, (int)(threadIdx.x % G), G, write);
}

__global__ void __launch_bounds__(1024) row_block(const float* __restrict__ x, int64_t rows, int64_t cols, float* __restrict__ y) {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
        row_op<BlockR>(x, rows, cols, y, r, (int)threadIdx.x, (int)blockDim.x, true);
}

template <int G>
static void launch_group(const float* __restrict__ x, int64_t rows, int64_t cols, float* __restrict__ y, cudaStream_t st) {
    const int threads = 256;
    const int64_t rows_per_block = threads / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    row_group<G><<<(unsigned)blocks, threads, 0, st>>>(x, rows, cols, y);
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (cols <= 1024) {
        // A group of lanes per row, sized to the row, so short rows do not idle most of a warp.
        if (cols <= 16)      launch_group<4>(x, rows, cols, y, st);
        else if (cols <= 32) launch_group<8>(x, rows, cols, y, st);
        else if (cols <= 64) launch_group<16>(x, rows, cols, y, st);
        else                 launch_group<32>(x, rows, cols, y, st);
    } else {
        // Few rows: big blocks so each row keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        row_block<<<(unsigned)blocks, threads, 0, st>>>(x, rows, cols, y);
    }
    return cudaGetLastError() != cudaSuccess;
}
