// Add + RMSNorm: h = x + residual; y = h * rsqrt(mean(h^2) + eps) * weight; outputs (y, h), float32.
//
// PyTorch eager runs add, pow, mean, add, rsqrt and two multiplies as separate kernels with
// full-size intermediates; here x and residual are read once, h and y written once, and h read
// back by the lane that wrote it (from cache unless the row is very long). Short rows (<= 1024)
// get a group of 4..32 lanes each, reduced with shuffles; longer rows a block each. Few long rows
// (fewer than the GPU has SMs) would leave most SMs idle with a block per row, so each row is then
// split into chunks over many blocks, in two kernels: the first writes h and each chunk's sum of
// squares to a small static buffer, and the row's last block to finish (an atomic counter per
// row) adds them up in chunk order and stores the row's scale; the second writes y from h (mostly
// from L2).
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

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
// Partials go per 32 lanes, so the same code holds for 64-wide wavefronts.
__device__ float block_sum(float v) {
    __shared__ float partial[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = group_sum<32>(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? partial[lane] : 0.0f;
        v = group_sum<32>(v);
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
    v = group_max<32>(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? partial[lane] : -INFINITY;
        v = group_max<32>(v);
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

// ---- split layout: few long rows, each over many blocks (grid = chunks x rows) -----------------
constexpr int SPLIT_THREADS = 256;
constexpr int SPLIT_UNROLL = 8;                                 // loads in flight per thread
constexpr int64_t SPLIT_STEP = SPLIT_THREADS * SPLIT_UNROLL;    // chunks are a multiple of this
constexpr int SPLIT_MAX_ROWS = 1024;
constexpr int SPLIT_MAX_PARTS = 16384;
// Scratch for the split path (one launch at a time per stream; the counters return to 0).
__device__ float g_part[SPLIT_MAX_PARTS];
__device__ float g_scale[SPLIT_MAX_ROWS];
__device__ unsigned int g_done[SPLIT_MAX_ROWS];

__global__ void __launch_bounds__(SPLIT_THREADS) split_add_sumsq(const float* __restrict__ x, const float* __restrict__ res, int64_t cols, int64_t chunk, int chunks, float eps, float* __restrict__ h) {
    const int c = blockIdx.x, row = blockIdx.y;
    const int64_t begin = (int64_t)c * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const int64_t off = (int64_t)row * cols;
    const float* xr = x + off;
    const float* rr = res + off;
    float* hr = h + off;
    float acc[SPLIT_UNROLL];
#pragma unroll
    for (int u = 0; u < SPLIT_UNROLL; ++u) acc[u] = 0.0f;
    int64_t j = begin + threadIdx.x;
    for (; j + (SPLIT_UNROLL - 1) * SPLIT_THREADS < end; j += SPLIT_STEP) {
        float v[SPLIT_UNROLL];
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) v[u] = xr[j + u * SPLIT_THREADS] + rr[j + u * SPLIT_THREADS];
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) {
            hr[j + u * SPLIT_THREADS] = v[u];
            acc[u] += v[u] * v[u];
        }
    }
    for (; j < end; j += SPLIT_THREADS) {
        const float v = xr[j] + rr[j];
        hr[j] = v;
        acc[0] += v * v;
    }
    float ss = 0.0f;
#pragma unroll
    for (int u = 0; u < SPLIT_UNROLL; ++u) ss += acc[u];
    ss = block_sum(ss);

    // Publish this chunk's sum; the row's last block adds the partials up.
    __shared__ bool last;
    if (threadIdx.x == 0) {
        g_part[row * chunks + c] = ss;
        __threadfence();  // the partial is visible before the count says so
        last = atomicAdd(&g_done[row], 1u) == (unsigned)(chunks - 1);
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const volatile float* part = g_part + row * chunks;  // volatile: read from L2, not a stale L1
    ss = 0.0f;
    for (int p = threadIdx.x; p < chunks; p += SPLIT_THREADS) ss += part[p];
    ss = block_sum(ss);
    if (threadIdx.x == 0) {
        g_scale[row] = rsqrtf(ss / (float)cols + eps);
        g_done[row] = 0;  // ready for the next launch
    }
}

__global__ void __launch_bounds__(SPLIT_THREADS) split_norm(const float* __restrict__ h, const float* __restrict__ w, int64_t cols, int64_t chunk, float* __restrict__ y) {
    const int c = blockIdx.x, row = blockIdx.y;
    const int64_t begin = (int64_t)c * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const float* hr = h + (int64_t)row * cols;
    float* yr = y + (int64_t)row * cols;
    const float r = g_scale[row];  // written by split_add_sumsq, earlier on the same stream
    int64_t j = begin + threadIdx.x;
    for (; j + (SPLIT_UNROLL - 1) * SPLIT_THREADS < end; j += SPLIT_STEP) {
        float hv[SPLIT_UNROLL], wv[SPLIT_UNROLL];
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) {
            hv[u] = hr[j + u * SPLIT_THREADS];
            wv[u] = w[j + u * SPLIT_THREADS];
        }
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) yr[j + u * SPLIT_THREADS] = hv[u] * r * wv[u];
    }
    for (; j < end; j += SPLIT_THREADS) yr[j] = hr[j] * r * w[j];
}

static int sm_count() {
    static int count = 0;
    if (count == 0) {
        int dev = 0, n = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) {
            (void)cudaGetLastError();  // not fatal: fall back to a typical count
            n = 132;
        }
        count = n;
    }
    return count;
}

// Split plan for rows too few to fill the GPU with a block each: about 8 blocks per SM in all,
// chunks a multiple of SPLIT_STEP; false where a block per row is the better layout.
static bool split_plan(int64_t rows, int64_t cols, int64_t& chunk, int64_t& chunks) {
    const int sms = sm_count();
    if (rows >= sms || rows > SPLIT_MAX_ROWS) return false;
    const int64_t per_row = (8 * (int64_t)sms + rows - 1) / rows;
    chunk = (cols + per_row - 1) / per_row;
    chunk = (chunk + SPLIT_STEP - 1) / SPLIT_STEP * SPLIT_STEP;
    chunks = (cols + chunk - 1) / chunk;  // every chunk holds at least one column
    return chunks >= 2 && rows * chunks <= SPLIT_MAX_PARTS;
}

template <int G>
static void launch_group(const float* __restrict__ x, const float* __restrict__ res, const float* __restrict__ w, int64_t rows, int64_t cols, float eps, float* __restrict__ y, float* __restrict__ h, cudaStream_t st) {
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
    cudaStream_t st = (cudaStream_t)stream;
    if (cols <= 1024) {
        // A group of lanes per row, sized to the row, so short rows do not idle most of a warp.
        if (cols <= 16)      launch_group<4>(x, res, w, rows, cols, eps, y, h, st);
        else if (cols <= 32) launch_group<8>(x, res, w, rows, cols, eps, y, h, st);
        else if (cols <= 64) launch_group<16>(x, res, w, rows, cols, eps, y, h, st);
        else                 launch_group<32>(x, res, w, rows, cols, eps, y, h, st);
    } else {
        int64_t chunk, chunks;
        if (split_plan(rows, cols, chunk, chunks)) {
            const dim3 grid((unsigned)chunks, (unsigned)rows);
            split_add_sumsq<<<grid, SPLIT_THREADS, 0, st>>>(x, res, cols, chunk, (int)chunks, eps, h);
            split_norm<<<grid, SPLIT_THREADS, 0, st>>>(h, w, cols, chunk, y);
            return cudaGetLastError() != cudaSuccess;
        }
        // Few rows: big blocks so each row keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        row_block<<<(unsigned)blocks, threads, 0, st>>>(x, res, w, rows, cols, eps, y, h);
    }
    return cudaGetLastError() != cudaSuccess;
}
