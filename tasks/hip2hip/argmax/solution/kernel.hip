// Argmax over rows: y[r] = the column of the largest x[r, :] (int64; first one on ties).
//
// Memory-bound: x is read once. The lanes per row are sized to it: a group of 4..32 lanes per
// short row (<= 1024), reduced with shuffles of (value, index) pairs; a block per longer row,
// reduced through shared memory.
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

constexpr int WARP = 32;  // reduction group width: one HIP warp, half a CDNA wavefront (both work)
// (value, index) max with ties to the lower index, as torch.argmax.
__device__ __forceinline__ void arg_better(float& v, int64_t& i, float ov, int64_t oi) {
    if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}
template <int G> __device__ __forceinline__ void group_argmax(float& v, int64_t& i) {
    for (int off = G / 2; off > 0; off >>= 1) {
        const float ov = __shfl_xor(v, off, G);
        const int64_t oi = __shfl_xor(i, off, G);
        arg_better(v, i, ov, oi);
    }
}
__device__ void block_argmax(float& v, int64_t& i) {
    __shared__ float pv[32];
    __shared__ int64_t pi[32];
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    group_argmax<WARP>(v, i);
    if (lane == 0) { pv[warp] = v; pi[warp] = i; }
    __syncthreads();
    if (warp == 0) {
        const bool has = lane < (int)(blockDim.x / WARP);
        v = has ? pv[lane] : -INFINITY;
        i = has ? pi[lane] : INT64_MAX;
        group_argmax<WARP>(v, i);
        if (lane == 0) { pv[0] = v; pi[0] = i; }
    }
    __syncthreads();
    v = pv[0]; i = pi[0];
    __syncthreads();
}

struct BlockR {
    __device__ static void argmax(float& v, int64_t& i) { block_argmax(v, i); }
};
template <int G> struct GroupR {
    __device__ static void argmax(float& v, int64_t& i) { group_argmax<G>(v, i); }
};

// One row: each lane keeps the best (value, index) of its strided slice, the row's lanes
// combine (ties to the lower index, as torch.argmax), lane 0 writes the index.
template <class R>
__device__ __forceinline__ void row_op(const float* __restrict__ x, int64_t rows, int64_t cols, int64_t* __restrict__ y, int64_t row, int lane, int nlanes, bool write) {
    const float* xr = x + row * cols;
    float best = -INFINITY;
    int64_t idx = cols;  // "none yet": loses every tie against a real index
#pragma unroll 4
    for (int64_t j = lane; j < cols; j += nlanes) {
        const float v = xr[j];
        if (v > best || idx == cols) { best = v; idx = j; }  // j grows: strict > keeps the first
    }
    R::argmax(best, idx);
    if (write && lane == 0) y[row] = idx;
}

// ---- layouts: G lanes per row (short rows) or one block per row ------------------------------
template <int G>
__global__ void row_group(const float* __restrict__ x, int64_t rows, int64_t cols, int64_t* __restrict__ y) {
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    // Lanes past the last row redo row rows-1 without writing: every lane must reach the shuffles.
    const bool write = r < rows;
    row_op<GroupR<G>>(x, rows, cols, y, write ? r : rows - 1, (int)(threadIdx.x % G), G, write);
}

__global__ void __launch_bounds__(1024) row_block(const float* __restrict__ x, int64_t rows, int64_t cols, int64_t* __restrict__ y) {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
        row_op<BlockR>(x, rows, cols, y, r, (int)threadIdx.x, (int)blockDim.x, true);
}

template <int G>
static void launch_group(const float* __restrict__ x, int64_t rows, int64_t cols, int64_t* __restrict__ y, hipStream_t st) {
    const int threads = 256;
    const int64_t rows_per_block = threads / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    row_group<G><<<(unsigned)blocks, threads, 0, st>>>(x, rows, cols, y);
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      int64_t* y,       // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
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
    return hipGetLastError() != hipSuccess;
}
