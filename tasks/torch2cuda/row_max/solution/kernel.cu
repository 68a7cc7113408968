// Row maximum: y[r] = max_c x[r, c] over a row-major float32 [rows, cols] matrix.
//
// Memory-bound: x is read once, and the lanes are sized to the rows:
//  * cols <= 1024: a group of G lanes (4..32, inside one warp) per row, reduced with shuffles,
//    so narrow rows (down to one column) do not leave most of a warp idle;
//  * longer rows: each row is cut into chunks of CHUNK columns, one 256-thread block per chunk,
//    so a handful of very long rows still spreads over every SM. A row of one chunk is written
//    directly; for a row of several chunks y is first set to -inf and each block merges its
//    chunk's max with an atomic float max (integer atomics on the float's bits, see below).
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

constexpr int BLOCK = 256;
constexpr int64_t CHUNK = 16384;  // columns per block: 64 per thread

// Reductions over a group of G lanes (G divides 32, groups aligned inside one warp).
template <int G> __device__ __forceinline__ float group_max(float v) {
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off, G));
    return v;
}

template <int G>
__global__ void row_max_group(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
    const int lane = threadIdx.x % G;
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    const bool valid = row < rows;  // no early return: every lane must reach the shuffles
    float m = -INFINITY;
    if (valid) {
        const float* xr = x + row * cols;
#pragma unroll 4
        for (int64_t j = lane; j < cols; j += G) m = fmaxf(m, xr[j]);
    }
    m = group_max<G>(m);
    if (valid && lane == 0) y[row] = m;
}

__global__ void fill_neg_inf(float* y, int64_t n) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = -INFINITY;
}

// Atomic max of a float in memory that holds a float. Non-negative floats order like their bits
// as signed ints; negative floats order in reverse of their bits as unsigned ints, and every
// negative float's unsigned bits exceed every non-negative one's, so the two integer atomics
// together give the float order (-0.0 takes the unsigned path: above every negative float).
__device__ __forceinline__ void atomic_max_float(float* addr, float v) {
    if (__float_as_int(v) >= 0) atomicMax(reinterpret_cast<int*>(addr), __float_as_int(v));
    else atomicMin(reinterpret_cast<unsigned int*>(addr), __float_as_uint(v));
}

// One block per (row, chunk) pair, grid-stride over the pairs.
__global__ void __launch_bounds__(BLOCK) row_max_chunks(const float* __restrict__ x, float* __restrict__ y,
                                                        int64_t rows, int64_t cols, int64_t chunks) {
    __shared__ float warp_max[BLOCK / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int64_t item = blockIdx.x; item < rows * chunks; item += gridDim.x) {
        const int64_t row = item / chunks, c0 = (item - row * chunks) * CHUNK;
        const int64_t c1 = c0 + CHUNK < cols ? c0 + CHUNK : cols;
        const float* xr = x + row * cols;
        float m = -INFINITY;
#pragma unroll 8
        for (int64_t j = c0 + threadIdx.x; j < c1; j += BLOCK) m = fmaxf(m, xr[j]);
        m = group_max<32>(m);
        if (lane == 0) warp_max[warp] = m;
        __syncthreads();
        if (warp == 0) {
            m = lane < BLOCK / 32 ? warp_max[lane] : -INFINITY;
            m = group_max<32>(m);
            if (lane == 0) {
                if (chunks == 1) y[row] = m;
                else atomic_max_float(y + row, m);
            }
        }
        __syncthreads();  // warp_max is rewritten by the next item
    }
}

template <int G>
static void launch_group(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t st) {
    const int64_t rows_per_block = BLOCK / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    row_max_group<G><<<(unsigned)blocks, BLOCK, 0, st>>>(x, y, rows, cols);
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows,
                      int64_t cols,
                      float* y,         // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (cols <= 1024) {
        // Smallest group that gives each lane at least ~4 columns (32 lanes beyond 128 columns).
        if (cols <= 16)      launch_group<4>(x, y, rows, cols, st);
        else if (cols <= 32) launch_group<8>(x, y, rows, cols, st);
        else if (cols <= 64) launch_group<16>(x, y, rows, cols, st);
        else                 launch_group<32>(x, y, rows, cols, st);
    } else {
        const int64_t chunks = (cols + CHUNK - 1) / CHUNK;
        if (chunks > 1) {
            int64_t fill_blocks = (rows + BLOCK - 1) / BLOCK;
            if (fill_blocks > 65536) fill_blocks = 65536;
            fill_neg_inf<<<(unsigned)fill_blocks, BLOCK, 0, st>>>(y, rows);
        }
        int64_t blocks = rows * chunks;
        if (blocks > (1 << 20)) blocks = 1 << 20;  // grid-stride loop covers the rest
        row_max_chunks<<<(unsigned)blocks, BLOCK, 0, st>>>(x, y, rows, cols, chunks);
    }
    return cudaGetLastError() != cudaSuccess;
}
