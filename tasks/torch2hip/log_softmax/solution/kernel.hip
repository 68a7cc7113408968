// Log-softmax over each row of a row-major float32 [rows, cols] matrix:
// y[r, c] = x[r, c] - max_r - log(sum_k exp(x[r, k] - max_r)).
//
// Memory-bound, so each row is read from DRAM once and held in registers while it is reduced:
// a thread issues all its loads at once (many bytes in flight), takes the row max, then the sum
// of exp(x - max), and writes x - (max + log(sum)). 16-byte accesses (float4) when cols % 4 == 0
// and x, y are 16-byte aligned, else scalar ones; consecutive lanes touch consecutive columns.
// Three layouts, by row length:
//  * cols <= 1024: G lanes of one wavefront per row (G = 4..32, so narrow rows keep lanes busy),
//    several rows per block, shuffle reductions; no shared memory, no __syncthreads.
//  * cols <= 32768: one block per row (up to 1024 threads, up to 32 values per thread).
//  * longer rows: the row is split over several blocks: one kernel writes each chunk's
//    (max, sum) to a static scratch buffer, a second merges them and writes the chunk (its
//    re-read of x comes from cache: rows go in batches of <= 32 MB). Two launches; only here.
// __expf: its error (a few ulps of each term) moves log(sum) by ~1e-6, far inside the 1e-4 tolerance.
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>

// ---- W floats moved per access (W = 4: one float4) -----------------------------------------
template <int W>
__device__ __forceinline__ void load_unit(const float* __restrict__ p, int64_t u, float* v) {
    if (W == 4) {
        const float4 t = reinterpret_cast<const float4*>(p)[u];
        v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
    } else {
        v[0] = p[u];
    }
}
template <int W>
__device__ __forceinline__ void store_unit(float* __restrict__ p, int64_t u, const float* v) {
    if (W == 4) reinterpret_cast<float4*>(p)[u] = make_float4(v[0], v[1], v[2], v[3]);
    else        p[u] = v[0];
}

// ---- reductions -------------------------------------------------------------------------------
// Over a group of G lanes (G divides 32, so also 64: a group never straddles two wavefronts and
// the width-G shuffles are right for either wavefront size).
template <int G> __device__ __forceinline__ float group_max(float v) {
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor(v, off, G));
    return v;
}
template <int G> __device__ __forceinline__ float group_sum(float v) {
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v += __shfl_xor(v, off, G);
    return v;
}
// Over one whole wavefront, whatever its width (warpSize: 32 or 64).
__device__ __forceinline__ float wave_max(float v) {
    for (int off = warpSize / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor(v, off));
    return v;
}
__device__ __forceinline__ float wave_sum(float v) {
    for (int off = warpSize / 2; off > 0; off >>= 1) v += __shfl_xor(v, off);
    return v;
}
// Over the block (blockDim.x a multiple of 64, at most 1024, so at most 32 wavefronts); every
// thread gets the result. Each call site passes its own 32-float shared array, so no barrier is
// needed after reading it.
__device__ __forceinline__ float block_max(float v, float* part) {
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    v = wave_max(v);
    if (lane == 0) part[wave] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x / warpSize) ? part[lane] : -INFINITY;
    return wave_max(v);
}
__device__ __forceinline__ float block_sum(float v, float* part) {
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    v = wave_sum(v);
    if (lane == 0) part[wave] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x / warpSize) ? part[lane] : 0.0f;
    return wave_sum(v);
}

// ---- cols <= 1024: G lanes per row, each holding K units of W floats --------------------------
template <int G, int K, int W>
__global__ void __launch_bounds__(256) log_softmax_group(const float* __restrict__ x, float* __restrict__ y,
                                                     int64_t rows, int64_t cols) {
    const int lane = threadIdx.x % G;
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    const bool valid = row < rows;  // no early return: every lane must reach the shuffles
    const int units = (int)(cols / W);
    const float* xr = x + (valid ? row : 0) * cols;
    float v[K * W];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int u = lane + k * G;
        if (valid && u < units) load_unit<W>(xr, u, &v[k * W]);
        else
#pragma unroll
            for (int w = 0; w < W; ++w) v[k * W + w] = -INFINITY;
    }
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < K * W; ++i) m = fmaxf(m, v[i]);
    m = group_max<G>(m);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < K * W; ++i) s += __expf(v[i] - m);  // padding: exp(-inf) = 0
    s = group_sum<G>(s);
    if (!valid) return;
    const float shift = m + logf(s);
    float* yr = y + row * cols;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int u = lane + k * G;
        if (u < units) {
#pragma unroll
            for (int w = 0; w < W; ++w) v[k * W + w] -= shift;
            store_unit<W>(yr, u, &v[k * W]);
        }
    }
}

// ---- cols <= 32768: one block per row, each thread holding K units of W floats ----------------
template <int K, int W>
__global__ void __launch_bounds__(1024) log_softmax_block(const float* __restrict__ x, float* __restrict__ y,
                                                      int64_t cols) {
    __shared__ float part_max[32], part_sum[32];
    const int64_t row = blockIdx.x;
    const int units = (int)(cols / W);
    const float* xr = x + row * cols;
    float v[K * W];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int u = threadIdx.x + k * blockDim.x;
        if (u < units) load_unit<W>(xr, u, &v[k * W]);
        else
#pragma unroll
            for (int w = 0; w < W; ++w) v[k * W + w] = -INFINITY;
    }
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < K * W; ++i) m = fmaxf(m, v[i]);
    m = block_max(m, part_max);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < K * W; ++i) s += __expf(v[i] - m);
    const float shift = m + logf(block_sum(s, part_sum));
    float* yr = y + row * cols;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int u = threadIdx.x + k * blockDim.x;
        if (u < units) {
#pragma unroll
            for (int w = 0; w < W; ++w) v[k * W + w] -= shift;
            store_unit<W>(yr, u, &v[k * W]);
        }
    }
}

// ---- longer rows: chunks of a row on several blocks, two kernels ------------------------------
// Block (c, r) of a grid (chunks, batch rows) handles units [c * len, (c + 1) * len) of row
// row0 + r, in tiles of SPLIT_THREADS * K units (8192 floats), each loaded at once into registers.
constexpr int SPLIT_THREADS = 256;
constexpr int MAX_CHUNKS = 1024;
constexpr int MAX_PARTIALS = 1 << 16;
__device__ float2 g_partials[MAX_PARTIALS];  // (max, sum of exp(x - max)) per chunk; one stream at a time

// Loads units [0, n) of a tile starting at p (32-bit indices within the tile).
template <int K, int W>
__device__ __forceinline__ void load_tile(const float* __restrict__ p, int n, float* v) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int u = threadIdx.x + k * SPLIT_THREADS;
        if (u < n) load_unit<W>(p, u, &v[k * W]);
        else
#pragma unroll
            for (int w = 0; w < W; ++w) v[k * W + w] = -INFINITY;
    }
}

template <int K, int W>
__global__ void __launch_bounds__(SPLIT_THREADS) log_softmax_split_stats(const float* __restrict__ x, int64_t cols,
                                                                     int64_t row0, int64_t len) {
    __shared__ float part_max[32], part_sum[32];
    const int64_t row = row0 + blockIdx.y, units = cols / W;
    const int64_t begin = blockIdx.x * len, end = begin + len < units ? begin + len : units;
    const float* xr = x + row * cols;
    float m = -INFINITY, s = 0.0f;  // this thread's running max and sum of exp(v - m)
    for (int64_t base = begin; base < end; base += SPLIT_THREADS * K) {
        float v[K * W];
        load_tile<K, W>(xr + base * W, (int)(end - base < SPLIT_THREADS * K ? end - base : SPLIT_THREADS * K), v);
        float nm = m;
#pragma unroll
        for (int i = 0; i < K * W; ++i) nm = fmaxf(nm, v[i]);
        if (nm == -INFINITY) continue;  // nothing seen yet: (m, s) stays (-inf, 0)
        s *= __expf(m - nm);
#pragma unroll
        for (int i = 0; i < K * W; ++i) s += __expf(v[i] - nm);
        m = nm;
    }
    const float bm = block_max(m, part_max);
    s = m == -INFINITY ? 0.0f : s * __expf(m - bm);
    s = block_sum(s, part_sum);
    if (threadIdx.x == 0) g_partials[blockIdx.y * gridDim.x + blockIdx.x] = make_float2(bm, s);
}

template <int K, int W>
__global__ void __launch_bounds__(SPLIT_THREADS) log_softmax_split_write(const float* __restrict__ x, float* __restrict__ y,
                                                                     int64_t cols, int64_t row0, int64_t len) {
    __shared__ float part_max[32], part_sum[32];
    const int64_t row = row0 + blockIdx.y, units = cols / W;
    const int64_t begin = blockIdx.x * len, end = begin + len < units ? begin + len : units;
    // Merge the row's chunk statistics (gridDim.x <= MAX_CHUNKS of them).
    const float2* p = g_partials + blockIdx.y * gridDim.x;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < (int)gridDim.x; j += SPLIT_THREADS) m = fmaxf(m, p[j].x);
    m = block_max(m, part_max);
    float s = 0.0f;
    for (int j = threadIdx.x; j < (int)gridDim.x; j += SPLIT_THREADS) {
        const float2 q = p[j];
        if (q.x != -INFINITY) s += q.y * __expf(q.x - m);
    }
    const float shift = m + logf(block_sum(s, part_sum));

    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    for (int64_t base = begin; base < end; base += SPLIT_THREADS * K) {
        const int n = (int)(end - base < SPLIT_THREADS * K ? end - base : SPLIT_THREADS * K);
        float v[K * W];
        load_tile<K, W>(xr + base * W, n, v);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int u = threadIdx.x + k * SPLIT_THREADS;
            if (u < n) {
#pragma unroll
                for (int w = 0; w < W; ++w) v[k * W + w] -= shift;
                store_unit<W>(yr + base * W, u, &v[k * W]);
            }
        }
    }
}

// ---- host side ----------------------------------------------------------------------------------
template <int G, int W>
static void launch_group_g(const float* x, float* y, int64_t rows, int64_t cols, int k, hipStream_t st) {
    const int threads = 256;
    const unsigned blocks = (unsigned)((rows * G + threads - 1) / threads);
    // G < 32 only for rows of <= 4 G units, so k <= 4 there; K * W <= 32 registers of data.
    if (k == 1)      log_softmax_group<G, 1, W><<<blocks, threads, 0, st>>>(x, y, rows, cols);
    else if (k == 2) log_softmax_group<G, 2, W><<<blocks, threads, 0, st>>>(x, y, rows, cols);
    else if (k == 4) log_softmax_group<G, 4, W><<<blocks, threads, 0, st>>>(x, y, rows, cols);
    else if constexpr (G == 32) {
        if (k == 8) log_softmax_group<G, 8, W><<<blocks, threads, 0, st>>>(x, y, rows, cols);
        else if constexpr (W == 1) {
            if (k == 16) log_softmax_group<G, 16, W><<<blocks, threads, 0, st>>>(x, y, rows, cols);
            else         log_softmax_group<G, 32, W><<<blocks, threads, 0, st>>>(x, y, rows, cols);
        }
    }
}

template <int W>
static void launch_group(const float* x, float* y, int64_t rows, int64_t cols, hipStream_t st) {
    const int64_t units = cols / W;
    int g = 4;  // lanes per row: about 4 units per lane for short rows, a full warp beyond 128 units
    while (g < 32 && g * 4 < units) g *= 2;
    int k = 1;  // units per lane (a power of two; slots past the row end are masked off)
    while ((int64_t)g * k < units) k *= 2;
    if (g == 4)       launch_group_g<4, W>(x, y, rows, cols, k, st);
    else if (g == 8)  launch_group_g<8, W>(x, y, rows, cols, k, st);
    else if (g == 16) launch_group_g<16, W>(x, y, rows, cols, k, st);
    else              launch_group_g<32, W>(x, y, rows, cols, k, st);
}

template <int W>
static void launch_block(const float* x, float* y, int64_t rows, int64_t cols, hipStream_t st) {
    const int64_t units = cols / W;
    constexpr int KMAX = 32 / W;  // 32 registers of data per thread at most
    int k = 1;  // the smallest power of two that keeps the block at <= 512 threads, if it can
    while (k < KMAX && units > 512 * k) k *= 2;
    const int threads = (int)((units + k - 1) / k + 63) / 64 * 64;  // whole wavefronts of 64 (or 32)
    const unsigned blocks = (unsigned)rows;
    if (k == 1)      log_softmax_block<1, W><<<blocks, threads, 0, st>>>(x, y, cols);
    else if (k == 2) log_softmax_block<2, W><<<blocks, threads, 0, st>>>(x, y, cols);
    else if (k == 4) log_softmax_block<4, W><<<blocks, threads, 0, st>>>(x, y, cols);
    else if (k == 8) log_softmax_block<8, W><<<blocks, threads, 0, st>>>(x, y, cols);
    else if constexpr (W == 1) {
        if (k == 16) log_softmax_block<16, W><<<blocks, threads, 0, st>>>(x, y, cols);
        else         log_softmax_block<32, W><<<blocks, threads, 0, st>>>(x, y, cols);
    }
}

template <int W>
static void launch_split(const float* x, float* y, int64_t rows, int64_t cols, hipStream_t st) {
    constexpr int K = 32 / W;
    const int64_t units = cols / W, tile = (int64_t)SPLIT_THREADS * K;
    int64_t chunks = (units + tile - 1) / tile;
    if (chunks > MAX_CHUNKS) chunks = MAX_CHUNKS;  // then a block walks several tiles
    const int64_t len = (units + chunks - 1) / chunks;  // units per chunk, balanced
    // Rows per batch: the partials must fit g_partials, and the batch's x should stay in cache so
    // that the second kernel re-reads it from there (32 MB: the last-level cache of recent GPUs).
    int64_t batch = MAX_PARTIALS / chunks;
    const int64_t fit = ((int64_t)32 << 20) / (cols * (int64_t)sizeof(float));
    if (batch > fit) batch = fit > 0 ? fit : 1;
    if (batch > 65535) batch = 65535;
    const int64_t nbatches = (rows + batch - 1) / batch;
    batch = (rows + nbatches - 1) / nbatches;  // even batches
    for (int64_t r0 = 0; r0 < rows; r0 += batch) {
        const dim3 grid((unsigned)chunks, (unsigned)(rows - r0 < batch ? rows - r0 : batch));
        log_softmax_split_stats<K, W><<<grid, SPLIT_THREADS, 0, st>>>(x, cols, r0, len);
        log_softmax_split_write<K, W><<<grid, SPLIT_THREADS, 0, st>>>(x, y, cols, r0, len);
    }
}

extern "C" int launch(const float* x, int64_t rows, int64_t cols, float* y, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    const bool vec = cols % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
    if (cols <= 1024) {
        if (vec) launch_group<4>(x, y, rows, cols, st);
        else     launch_group<1>(x, y, rows, cols, st);
    } else if (cols <= 32768) {
        if (vec) launch_block<4>(x, y, rows, cols, st);
        else     launch_block<1>(x, y, rows, cols, st);
    } else {
        if (vec) launch_split<4>(x, y, rows, cols, st);
        else     launch_split<1>(x, y, rows, cols, st);
    }
    return hipGetLastError() != hipSuccess;
}
