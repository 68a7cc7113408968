// Row-wise softmax of a row-major float32 [rows, cols] matrix: y[r, :] = softmax(x[r, :]).
//
// Two kernels, chosen by row length, both reading x once from DRAM and writing y once:
//  * cols <= 1024: a group of G lanes (4..32, inside one warp) per row, so narrow rows do not
//    leave most of a warp idle; the group reduces with register shuffles.
//  * cols > 1024: one block per row, reduced through shared memory.
// Pass 1 computes the row max and sum of exp in a single sweep ("online" softmax: when the
// running max grows, the running sum is rescaled). Pass 2 re-reads the row (now in L1/L2) and
// writes exp(x - max) / sum. All loads and stores are coalesced: consecutive lanes touch
// consecutive columns.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

// Fold element v into the running (max m, sum s of exp(x - m)).
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) {
        s = s * expf(m - v) + 1.0f;  // m may be -inf here: expf(-inf) = 0
        m = v;
    } else {
        s += expf(v - m);
    }
}

// Merge another partial (om, os) into (m, s).
__device__ __forceinline__ void online_merge(float& m, float& s, float om, float os) {
    const float nm = fmaxf(m, om);
    if (nm == -INFINITY) return;  // both partials empty; avoid (-inf) - (-inf) = NaN
    s = s * expf(m - nm) + os * expf(om - nm);
    m = nm;
}

// G lanes per row; a block of blockDim.x threads covers blockDim.x / G rows.
template <int G>
__global__ void softmax_group(const float* __restrict__ x, float* __restrict__ y,
                              int64_t rows, int64_t cols) {
    const int lane = threadIdx.x % G;
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    const bool valid = row < rows;  // no early return: every lane must reach the shuffles
    const float* xr = x + (valid ? row : 0) * cols;

    float m = -INFINITY, s = 0.0f;
    if (valid) {
#pragma unroll 4
        for (int64_t j = lane; j < cols; j += G) online_add(m, s, xr[j]);
    }
    // Butterfly reduction within the group (width G keeps groups independent).
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) {
        const float om = __shfl_xor_sync(0xffffffffu, m, off, G);
        const float os = __shfl_xor_sync(0xffffffffu, s, off, G);
        online_merge(m, s, om, os);
    }
    if (!valid) return;
    const float inv = 1.0f / s;
    float* yr = y + row * cols;
#pragma unroll 4
    for (int64_t j = lane; j < cols; j += G) yr[j] = expf(xr[j] - m) * inv;
}

// One block per row (grid-stride over rows). blockDim.x is a multiple of 32, at most 1024.
__global__ void softmax_block(const float* __restrict__ x, float* __restrict__ y,
                              int64_t rows, int64_t cols) {
    __shared__ float sm_m[32], sm_s[32];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int nwarps = blockDim.x / 32;

    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* xr = x + row * cols;
        float m = -INFINITY, s = 0.0f;
#pragma unroll 4
        for (int64_t j = tid; j < cols; j += blockDim.x) online_add(m, s, xr[j]);

        // Warp reduction, then the first warp reduces the per-warp partials.
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            online_merge(m, s, __shfl_xor_sync(0xffffffffu, m, off),
                         __shfl_xor_sync(0xffffffffu, s, off));
        }
        if (lane == 0) { sm_m[warp] = m; sm_s[warp] = s; }
        __syncthreads();
        if (warp == 0) {
            m = lane < nwarps ? sm_m[lane] : -INFINITY;
            s = lane < nwarps ? sm_s[lane] : 0.0f;
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                online_merge(m, s, __shfl_xor_sync(0xffffffffu, m, off),
                             __shfl_xor_sync(0xffffffffu, s, off));
            }
            if (lane == 0) { sm_m[0] = m; sm_s[0] = s; }
        }
        __syncthreads();
        m = sm_m[0];
        const float inv = 1.0f / sm_s[0];
        __syncthreads();  // sm_* is rewritten by the next row

        float* yr = y + row * cols;
#pragma unroll 4
        for (int64_t j = tid; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
    }
}

template <int G>
static void launch_group(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t st) {
    const int threads = 256;
    const int64_t rows_per_block = threads / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    softmax_group<G><<<(unsigned)blocks, threads, 0, st>>>(x, y, rows, cols);
}

extern "C" int launch(const float* x, int64_t rows, int64_t cols, float* y, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (cols <= 1024) {
        // Smallest group that gives each lane at least ~4 columns (32 lanes beyond 128 columns).
        if (cols <= 16)      launch_group<4>(x, y, rows, cols, st);
        else if (cols <= 32) launch_group<8>(x, y, rows, cols, st);
        else if (cols <= 64) launch_group<16>(x, y, rows, cols, st);
        else                 launch_group<32>(x, y, rows, cols, st);
    } else {
        // Few long rows: big blocks so each SM keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        softmax_block<<<(unsigned)blocks, threads, 0, st>>>(x, y, rows, cols);
    }
    return cudaGetLastError() != cudaSuccess;
}
