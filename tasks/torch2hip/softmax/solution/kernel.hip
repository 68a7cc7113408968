// Row-wise softmax of a row-major float32 [rows, cols] matrix: y[r, :] = softmax(x[r, :]).
//
// Two kernels, chosen by row length, both reading x once from DRAM and writing y once:
//  * cols <= 1024: a group of G lanes (4..32) per row, so narrow rows do not leave most of a
//    wavefront idle; G divides both 32 and 64, so a group never straddles two wavefronts and the
//    width-G shuffles are correct for either wavefront size.
//  * cols > 1024: one block per row: wavefront shuffles (any warpSize) then shared memory.
// Pass 1 computes the row max and sum of exp in a single sweep ("online" softmax: when the
// running max grows, the running sum is rescaled). Pass 2 re-reads the row (now in cache) and
// writes exp(x - max) / sum. Consecutive lanes touch consecutive columns (coalesced).
#include <hip/hip_runtime.h>
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
        for (int64_t j = lane; j < cols; j += G) online_add(m, s, xr[j]);
    }
    // Butterfly reduction within the group (width G keeps groups independent).
    for (int off = G / 2; off > 0; off >>= 1) {
        const float om = __shfl_xor(m, off, G);
        const float os = __shfl_xor(s, off, G);
        online_merge(m, s, om, os);
    }
    if (!valid) return;
    const float inv = 1.0f / s;
    float* yr = y + row * cols;
    for (int64_t j = lane; j < cols; j += G) yr[j] = expf(xr[j] - m) * inv;
}

// Reduce (m, s) across one wavefront, whatever its width; lane 0 ends with the result.
__device__ __forceinline__ void wave_merge(float& m, float& s) {
    for (int off = warpSize / 2; off > 0; off >>= 1) {
        const float om = __shfl_xor(m, off);
        const float os = __shfl_xor(s, off);
        online_merge(m, s, om, os);
    }
}

// One block per row (grid-stride over rows). blockDim.x is a multiple of the wavefront size,
// at most 1024, so there are at most 32 wavefronts (32 when 32 wide, 16 when 64 wide).
__global__ void __launch_bounds__(1024) softmax_block(const float* __restrict__ x, float* __restrict__ y,
                                                      int64_t rows, int64_t cols) {
    __shared__ float sm_m[32], sm_s[32];
    const int tid = threadIdx.x;
    const int lane = tid % warpSize, wave = tid / warpSize;
    const int nwaves = blockDim.x / warpSize;

    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* xr = x + row * cols;
        float m = -INFINITY, s = 0.0f;
        for (int64_t j = tid; j < cols; j += blockDim.x) online_add(m, s, xr[j]);

        wave_merge(m, s);
        if (lane == 0) { sm_m[wave] = m; sm_s[wave] = s; }
        __syncthreads();
        if (wave == 0) {
            m = lane < nwaves ? sm_m[lane] : -INFINITY;
            s = lane < nwaves ? sm_s[lane] : 0.0f;
            wave_merge(m, s);
            if (lane == 0) { sm_m[0] = m; sm_s[0] = s; }
        }
        __syncthreads();
        m = sm_m[0];
        const float inv = 1.0f / sm_s[0];
        __syncthreads();  // sm_* is rewritten by the next row

        float* yr = y + row * cols;
        for (int64_t j = tid; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
    }
}

template <int G>
static void launch_group(const float* x, float* y, int64_t rows, int64_t cols, hipStream_t st) {
    const int threads = 256;
    const int64_t rows_per_block = threads / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    softmax_group<G><<<(unsigned)blocks, threads, 0, st>>>(x, y, rows, cols);
}

extern "C" int launch(const float* x, int64_t rows, int64_t cols, float* y, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (cols <= 1024) {
        // Smallest group that gives each lane at least ~4 columns (32 lanes beyond 128 columns).
        if (cols <= 16)      launch_group<4>(x, y, rows, cols, st);
        else if (cols <= 32) launch_group<8>(x, y, rows, cols, st);
        else if (cols <= 64) launch_group<16>(x, y, rows, cols, st);
        else                 launch_group<32>(x, y, rows, cols, st);
    } else {
        // Few long rows: big blocks so each compute unit keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        softmax_block<<<(unsigned)blocks, threads, 0, st>>>(x, y, rows, cols);
    }
    return hipGetLastError() != hipSuccess;
}
