// Add + RMSNorm: h = x + residual; y = h * rsqrt(mean(h^2) + eps) * weight; outputs (y, h), float32.
//
// PyTorch eager runs add, pow, mean, add, rsqrt and two multiplies as separate kernels with
// full-size intermediates; here x and residual are read once, h and y written once, and h read
// back by the lane that wrote it (from cache unless the row is very long). Short rows (<= 1024)
// get a group of 4..32 lanes each, reduced with shuffles; longer rows a block each.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = warpSize / 2; off > 0; off >>= 1) v += __shfl_xor(v, off);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int off = warpSize / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor(v, off));
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

// One row: h = x + residual is written (it is the second output) while its sum of squares is
// accumulated; each lane then re-reads the h elements it wrote itself (no other lane's writes,
// so no barrier is needed) and writes y.
template <class R>
__device__ __forceinline__ void row_op(const float* __restrict__ x, const float* __restrict__ res, const float* __restrict__ w, int64_t rows, int64_t cols, float eps, float* __restrict__ y, float* __restrict__ h, int64_t row, int lane, int nlanes, bool write) {
    const float* xr = x + row * cols;
    const float* rr = res + row * cols;
    float* hr = h + row * cols;
    float ss = 0.0f;
#pragma unroll 4
    for (int64_t j = lane; j < cols; j += nlanes) {
        const float v = xr[j] + rr[j];
        if (write) hr[j] = v;
        ss += v * v;
    }
    const float r = rsqrtf(R::sum(ss) / (float)cols + eps);
    if (!write) return;
    float* yr = y + row * cols;
#pragma unroll 4
    for (int64_t j = lane; j < cols; j += nlanes) yr[j] = hr[j] * r * w[j];
}

// ---- layouts: G lanes per row (short rows) or one block per row ------------------------------
template <int G>
__global__ void row_group(const float* __restrict__ x, const float* __restrict__ res, const float* __restrict__ w, int64_t rows, int64_t cols, float eps, float* __restrict__ y, float* __restrict__ h) {
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    // Lanes past the last row redo row rows-1 without writing: every lane must reach the shuffles.
    const bool write = r < rows;
    row_op<GroupR<G>>(x, res, w, rows, cols, eps, y, h, write ? r : rows - 1, (int)(threadIdx.x % G), G, write);
}

__global__ void __launch_bounds__(1024) row_block(const float* __restrict__ x, const float* __restrict__ res, const float* __restrict__ w, int64_t rows, int64_t cols, float eps, float* __restrict__ y, float* __restrict__ h) {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
        row_op<BlockR>(x, res, w, rows, cols, eps, y, h, r, (int)threadIdx.x, (int)blockDim.x, true);
}

template <int G>
static void launch_group(const float* __restrict__ x, const float* __restrict__ res, const float* __restrict__ w, int64_t rows, int64_t cols, float eps, float* __restrict__ y, float* __restrict__ h, hipStream_t st) {
    const int threads = 256;
    const int64_t rows_per_block = threads / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    row_group<G><<<(unsigned)blocks, threads, 0, st>>>(x, res, w, rows, cols, eps, y, h);
}

extern "C" int launch(const float* x,     // [rows, cols]
                      const float* res,   // [rows, cols] residual
                      const float* w,     // [cols] weight
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,           // [rows, cols] output 1: the normed rows
                      float* h,           // [rows, cols] output 2: x + residual
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (cols <= 1024) {
        // A group of lanes per row, sized to the row, so short rows do not idle most of a warp.
        if (cols <= 16)      launch_group<4>(x, res, w, rows, cols, eps, y, h, st);
        else if (cols <= 32) launch_group<8>(x, res, w, rows, cols, eps, y, h, st);
        else if (cols <= 64) launch_group<16>(x, res, w, rows, cols, eps, y, h, st);
        else                 launch_group<32>(x, res, w, rows, cols, eps, y, h, st);
    } else {
        // Few rows: big blocks so each row keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        row_block<<<(unsigned)blocks, threads, 0, st>>>(x, res, w, rows, cols, eps, y, h);
    }
    return hipGetLastError() != hipSuccess;
}
