// Cross-entropy per row: loss[r] = logsumexp(x[r, :]) - x[r, target[r]], float32 (reduction 'none').
//
// PyTorch eager runs log_softmax (writing a full [rows, cols] intermediate) then a gather; here
// the logits are read once and one float per row is written. The lanes per row are sized to it:
// a group of 4..32 lanes per short row (<= 1024), reduced with shuffles; a block per longer row.
// Few long rows (fewer than the GPU has SMs) would leave most SMs idle with a block per row, so
// each row is then split into chunks over many blocks: each writes its chunk's (max, sum of
// exp(x - max)) to a small static buffer, and the row's last block to finish (an atomic counter
// per row) rescales the partials to the row max and adds them up in chunk order.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

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

// One row. Each lane keeps a running (max, sum of exp(x - max)) over its slice ("online
// softmax", one read of the row); the lanes agree on the row max, rescale their sums to it and
// add them up; lane 0 subtracts the target's logit.
template <class R>
__device__ __forceinline__ void row_op(const float* __restrict__ x, const int64_t* __restrict__ target, int64_t rows, int64_t cols, float* __restrict__ loss, int64_t row, int lane, int nlanes, bool write) {
    const float* xr = x + row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int64_t j = lane; j < cols; j += nlanes) {
        const float v = xr[j];
        if (v > m) { s = s * __expf(m - v) + 1.0f; m = v; }
        else       { s += __expf(v - m); }
    }
    const float row_max = R::max(m);
    s = (m == -INFINITY) ? 0.0f : s * __expf(m - row_max);  // a lane that saw no element adds 0
    const float lse = row_max + logf(R::sum(s));
    if (write && lane == 0) loss[row] = lse - xr[target[row]];
}

// ---- layouts: G lanes per row (short rows) or one block per row ------------------------------
template <int G>
__global__ void row_group(const float* __restrict__ x, const int64_t* __restrict__ target, int64_t rows, int64_t cols, float* __restrict__ loss) {
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    // Lanes past the last row redo row rows-1 without writing: every lane must reach the shuffles.
    const bool write = r < rows;
    row_op<GroupR<G>>(x, target, rows, cols, loss, write ? r : rows - 1, (int)(threadIdx.x % G), G, write);
}

__global__ void __launch_bounds__(1024) row_block(const float* __restrict__ x, const int64_t* __restrict__ target, int64_t rows, int64_t cols, float* __restrict__ loss) {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
        row_op<BlockR>(x, target, rows, cols, loss, r, (int)threadIdx.x, (int)blockDim.x, true);
}

// ---- split layout: few long rows, each over many blocks (grid = chunks x rows) -----------------
constexpr int SPLIT_THREADS = 256;
constexpr int SPLIT_UNROLL = 8;                                 // loads in flight per thread
constexpr int64_t SPLIT_STEP = SPLIT_THREADS * SPLIT_UNROLL;    // chunks are a multiple of this
constexpr int SPLIT_MAX_ROWS = 1024;
constexpr int SPLIT_MAX_PARTS = 16384;
// Scratch for the split path (one launch at a time per stream; the counters return to 0).
__device__ float g_part_m[SPLIT_MAX_PARTS];
__device__ float g_part_s[SPLIT_MAX_PARTS];
__device__ unsigned int g_done[SPLIT_MAX_ROWS];

__device__ __forceinline__ void online_one(float v, float& m, float& s) {
    if (v > m) { s = s * __expf(m - v) + 1.0f; m = v; }
    else       { s += __expf(v - m); }
}

__global__ void __launch_bounds__(SPLIT_THREADS) row_split(const float* __restrict__ x, const int64_t* __restrict__ target, int64_t cols, int64_t chunk, int chunks, float* __restrict__ loss) {
    const int c = blockIdx.x, row = blockIdx.y;
    const int64_t begin = (int64_t)c * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const float* xr = x + (int64_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    int64_t j = begin + threadIdx.x;
    for (; j + (SPLIT_UNROLL - 1) * SPLIT_THREADS < end; j += SPLIT_STEP) {
        float v[SPLIT_UNROLL];  // all loads first, then the running (max, sum)
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) v[u] = xr[j + u * SPLIT_THREADS];
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) online_one(v[u], m, s);
    }
    for (; j < end; j += SPLIT_THREADS) online_one(xr[j], m, s);
    float chunk_max = block_max(m);
    s = (m == -INFINITY) ? 0.0f : s * __expf(m - chunk_max);  // a lane that saw no element adds 0
    s = block_sum(s);

    // Publish this chunk's (max, sum); the row's last block combines them.
    __shared__ bool last;
    const int part = row * chunks + c;
    if (threadIdx.x == 0) {
        g_part_m[part] = chunk_max;
        g_part_s[part] = s;
        __threadfence();  // the partial is visible before the count says so
        last = atomicAdd(&g_done[row], 1u) == (unsigned)(chunks - 1);
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const volatile float* pm = g_part_m + row * chunks;  // volatile: read from L2, not a stale L1
    const volatile float* ps = g_part_s + row * chunks;
    m = -INFINITY;
    for (int p = threadIdx.x; p < chunks; p += SPLIT_THREADS) m = fmaxf(m, pm[p]);
    const float row_max = block_max(m);
    s = 0.0f;
    for (int p = threadIdx.x; p < chunks; p += SPLIT_THREADS) {
        const float cm = pm[p];
        if (cm != -INFINITY) s += ps[p] * __expf(cm - row_max);
    }
    s = block_sum(s);
    if (threadIdx.x == 0) {
        loss[row] = row_max + logf(s) - xr[target[row]];
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
static void launch_group(const float* __restrict__ x, const int64_t* __restrict__ target, int64_t rows, int64_t cols, float* __restrict__ loss, hipStream_t st) {
    const int threads = 256;
    const int64_t rows_per_block = threads / G;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    row_group<G><<<(unsigned)blocks, threads, 0, st>>>(x, target, rows, cols, loss);
}

extern "C" int launch(const float* x,           // [rows, cols] logits
                      const int64_t* target,    // [rows]
                      int64_t rows, int64_t cols,
                      float* loss,              // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (cols <= 1024) {
        // A group of lanes per row, sized to the row, so short rows do not idle most of a warp.
        if (cols <= 16)      launch_group<4>(x, target, rows, cols, loss, st);
        else if (cols <= 32) launch_group<8>(x, target, rows, cols, loss, st);
        else if (cols <= 64) launch_group<16>(x, target, rows, cols, loss, st);
        else                 launch_group<32>(x, target, rows, cols, loss, st);
    } else {
        int64_t chunk, chunks;
        if (split_plan(rows, cols, chunk, chunks)) {
            row_split<<<dim3((unsigned)chunks, (unsigned)rows), SPLIT_THREADS, 0, st>>>(x, target, cols, chunk, (int)chunks, loss);
            return hipGetLastError() != hipSuccess;
        }
        // Few rows: big blocks so each row keeps many loads in flight.
        const int threads = rows < 1024 ? 1024 : 256;
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        row_block<<<(unsigned)blocks, threads, 0, st>>>(x, target, rows, cols, loss);
    }
    return hipGetLastError() != hipSuccess;
}
