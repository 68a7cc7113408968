// Row mean: y[r] = sum_c x[r, c] / cols, float32.
//
// Memory-bound: x is read once. The lanes per row are sized to it: a group of 4..32 lanes per
// short row (<= 1024), reduced with shuffles, so short rows do not idle most of a warp; a block
// per longer row, reduced through shared memory. Few long rows (fewer than the GPU has SMs) would
// leave most SMs idle with a block per row, so each row is then split into chunks over many
// blocks: each writes its chunk's sum to a small static buffer, and the row's last block to finish
// (an atomic counter per row) adds the partials up in chunk order (the same sum whichever block
// comes last).
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

// ---- split layout: few long rows, each over many blocks (grid = chunks x rows) -----------------
constexpr int SPLIT_THREADS = 256;
constexpr int SPLIT_UNROLL = 8;                                 // loads in flight per thread
constexpr int64_t SPLIT_STEP = SPLIT_THREADS * SPLIT_UNROLL;    // chunks are a multiple of this
constexpr int SPLIT_MAX_ROWS = 1024;
constexpr int SPLIT_MAX_PARTS = 16384;
// Scratch for the split path (one launch at a time per stream; the counters return to 0).
__device__ float g_part[SPLIT_MAX_PARTS];
__device__ unsigned int g_done[SPLIT_MAX_ROWS];

__global__ void __launch_bounds__(SPLIT_THREADS) row_split(const float* __restrict__ x, int64_t cols, int64_t chunk, int chunks, float* __restrict__ y) {
    const int c = blockIdx.x, row = blockIdx.y;
    const int64_t begin = (int64_t)c * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const float* xr = x + (int64_t)row * cols;
    float acc[SPLIT_UNROLL];
#pragma unroll
    for (int u = 0; u < SPLIT_UNROLL; ++u) acc[u] = 0.0f;
    int64_t j = begin + threadIdx.x;
    for (; j + (SPLIT_UNROLL - 1) * SPLIT_THREADS < end; j += SPLIT_STEP) {
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) acc[u] += xr[j + u * SPLIT_THREADS];
    }
    for (; j < end; j += SPLIT_THREADS) acc[0] += xr[j];
    float s = 0.0f;
#pragma unroll
    for (int u = 0; u < SPLIT_UNROLL; ++u) s += acc[u];
    s = block_sum(s);

    // Publish this chunk's sum; the row's last block adds the partials up.
    __shared__ bool last;
    if (threadIdx.x == 0) {
        g_part[row * chunks + c] = s;
        __threadfence();  // the partial is visible before the count says so
        last = atomicAdd(&g_done[row], 1u) == (unsigned)(chunks - 1);
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const volatile float* part = g_part + row * chunks;  // volatile: read from L2, not a stale L1
    s = 0.0f;
    for (int p = threadIdx.x; p < chunks; p += SPLIT_THREADS) s += part[p];
    s = block_sum(s);
    if (threadIdx.x == 0) {
        y[row] = s / (float)cols;
        g_done[row] = 0;  // ready for the next launch
    }
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
        int64_t chunk, chunks;
        if (split_plan(rows, cols, chunk, chunks)) {
            row_split<<<dim3((unsigned)chunks, (unsigned)rows), SPLIT_THREADS, 0, st>>>(x, cols, chunk, (int)chunks, y);
            return cudaGetLastError() != cudaSuccess;
        }
        // Few rows: big blocks so each row keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        row_block<<<(unsigned)blocks, threads, 0, st>>>(x, rows, cols, y);
    }
    return cudaGetLastError() != cudaSuccess;
}
