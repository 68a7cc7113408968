// Argmax over rows: y[r] = the column of the largest x[r, :] (int64; first one on ties).
//
// Memory-bound: x is read once. The lanes per row are sized to it: a group of 4..32 lanes per
// short row (<= 1024), reduced with shuffles of (value, index) pairs; a block per longer row,
// reduced through shared memory. Few long rows (fewer than the GPU has SMs) would leave most SMs
// idle with a block per row, so each row is then split into chunks over many blocks: each writes
// its chunk's best (value, first index) to a small static buffer, and the row's last block to
// finish (an atomic counter per row) picks the best partial, lowest index on ties (chunks lie in
// column order, so that is the row's first maximum).
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

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

// ---- split layout: few long rows, each over many blocks (grid = chunks x rows) -----------------
constexpr int SPLIT_THREADS = 256;
constexpr int SPLIT_UNROLL = 8;                                 // loads in flight per thread
constexpr int64_t SPLIT_STEP = SPLIT_THREADS * SPLIT_UNROLL;    // chunks are a multiple of this
constexpr int SPLIT_MAX_ROWS = 1024;
constexpr int SPLIT_MAX_PARTS = 16384;
// Scratch for the split path (one launch at a time per stream; the counters return to 0).
__device__ float g_part_v[SPLIT_MAX_PARTS];
__device__ int64_t g_part_i[SPLIT_MAX_PARTS];
__device__ unsigned int g_done[SPLIT_MAX_ROWS];

__device__ __forceinline__ void scan_one(float v, int64_t j, float& best, int64_t& idx, int64_t none) {
    if (v > best || idx == none) { best = v; idx = j; }  // j grows: strict > keeps the first
}

__global__ void __launch_bounds__(SPLIT_THREADS) row_split(const float* __restrict__ x, int64_t cols, int64_t chunk, int chunks, int64_t* __restrict__ y) {
    const int c = blockIdx.x, row = blockIdx.y;
    const int64_t begin = (int64_t)c * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const float* xr = x + (int64_t)row * cols;
    float best = -INFINITY;
    int64_t idx = cols;  // "none yet", as in row_op
    int64_t j = begin + threadIdx.x;
    for (; j + (SPLIT_UNROLL - 1) * SPLIT_THREADS < end; j += SPLIT_STEP) {
        float v[SPLIT_UNROLL];  // all loads first, then the (in-order) comparisons
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) v[u] = xr[j + u * SPLIT_THREADS];
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) scan_one(v[u], j + u * SPLIT_THREADS, best, idx, cols);
    }
    for (; j < end; j += SPLIT_THREADS) scan_one(xr[j], j, best, idx, cols);
    block_argmax(best, idx);

    // Publish this chunk's (value, index); the row's last block combines them.
    __shared__ bool last;
    const int part = row * chunks + c;
    if (threadIdx.x == 0) {
        g_part_v[part] = best;
        g_part_i[part] = idx;
        __threadfence();  // the partial is visible before the count says so
        last = atomicAdd(&g_done[row], 1u) == (unsigned)(chunks - 1);
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const volatile float* pv = g_part_v + row * chunks;    // volatile: read from L2, not a stale L1
    const volatile int64_t* pi = g_part_i + row * chunks;
    best = -INFINITY;
    idx = cols;  // loses every tie against a real index
    for (int p = threadIdx.x; p < chunks; p += SPLIT_THREADS) arg_better(best, idx, pv[p], pi[p]);
    block_argmax(best, idx);
    if (threadIdx.x == 0) {
        y[row] = idx;
        g_done[row] = 0;  // ready for the next launch
    }
}

static int sm_count() {
    static int count = 0;
    if (count == 0) {
        int dev = 0, n = 0;
        if (hipGetDevice(&dev) != hipSuccess ||
            hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, dev) != hipSuccess || n <= 0) {
            (void)hipGetLastError();  // not fatal: fall back to a typical count
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
        int64_t chunk, chunks;
        if (split_plan(rows, cols, chunk, chunks)) {
            row_split<<<dim3((unsigned)chunks, (unsigned)rows), SPLIT_THREADS, 0, st>>>(x, cols, chunk, (int)chunks, y);
            return hipGetLastError() != hipSuccess;
        }
        // Few rows: big blocks so each row keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        row_block<<<(unsigned)blocks, threads, 0, st>>>(x, rows, cols, y);
    }
    return hipGetLastError() != hipSuccess;
}
