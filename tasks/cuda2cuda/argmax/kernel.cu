// Argmax over rows: y[r] = the column of the largest x[r, :] (int64; first one on ties).
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel, its layout picked by the row length:
//   * rows of up to 1024 columns: one warp per row (8 rows per 256-thread block), each lane a
//     strided slice, then a shuffle reduction of (value, column) pairs;
//   * longer rows: one 256-thread block per row, strided coalesced loads, shuffles within each
//     warp and shared memory across the warps;
//   * fewer long rows than it takes to fill the GPU: each row is cut into chunks over many blocks;
//     a first launch writes each chunk's best (value, column) to a scratch buffer, a second one
//     reduces each row's partials.
// Ties go to the lower column everywhere (as torch.argmax).
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define SPLIT_ROWS 128            // split rows when there are fewer than this many
#define SPLIT_CHUNK 4096          // columns per block in the split path (at least)
#define SPLIT_TARGET_BLOCKS 512   // blocks the split path aims for in all
#define MAX_PARTS 1024            // scratch partials: SPLIT_ROWS * chunks stays below this

__device__ float g_part_v[MAX_PARTS];
__device__ int64_t g_part_i[MAX_PARTS];

// (ov, oi) beats (v, i): larger value, or the same value at a lower column. An empty slot is
// (-inf, INT64_MAX), so any real element beats it.
__device__ __forceinline__ void take_better(float& v, int64_t& i, float ov, int64_t oi) {
    if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

__device__ __forceinline__ void warp_argmax(float& v, int64_t& i) {
    for (int off = 16; off > 0; off >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, v, off, 32);
        const int64_t oi = __shfl_xor_sync(0xffffffffu, i, off, 32);
        take_better(v, i, ov, oi);
    }
}

// Every thread of the block calls it; thread 0 gets the block's best.
__device__ __forceinline__ void block_argmax(float& v, int64_t& i) {
    __shared__ float sv[WARPS];
    __shared__ int64_t si[WARPS];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    warp_argmax(v, i);
    if (lane == 0) { sv[warp] = v; si[warp] = i; }
    __syncthreads();
    if (warp == 0) {
        v = lane < WARPS ? sv[lane] : -INFINITY;
        i = lane < WARPS ? si[lane] : INT64_MAX;
        warp_argmax(v, i);
    }
    __syncthreads();  // sv/si are free again for a next call
}

// The best (value, column) of xr[begin, end) seen by one thread stepping by `step` from `first`.
__device__ __forceinline__ void scan(const float* xr, int64_t first, int64_t end, int64_t step,
                                     float& best, int64_t& idx) {
    for (int64_t j = first; j < end; j += step) {
        const float v = xr[j];
        if (v > best || idx == INT64_MAX) { best = v; idx = j; }  // j grows: strict > keeps the first
    }
}

__global__ void argmax_warp_per_row(const float* x, int64_t rows, int64_t cols, int64_t* y) {
    const int64_t row = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (row >= rows) return;  // the whole warp leaves together
    const int lane = threadIdx.x % 32;
    float best = -INFINITY;
    int64_t idx = INT64_MAX;
    scan(x + row * cols, lane, cols, 32, best, idx);
    warp_argmax(best, idx);
    if (lane == 0) y[row] = idx;
}

__global__ void argmax_block_per_row(const float* x, int64_t rows, int64_t cols, int64_t* y) {
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        float best = -INFINITY;
        int64_t idx = INT64_MAX;
        scan(x + row * cols, threadIdx.x, cols, THREADS, best, idx);
        block_argmax(best, idx);
        if (threadIdx.x == 0) y[row] = idx;
    }
}

// grid (chunks, rows): chunk blockIdx.x of row blockIdx.y -> g_part_*[row * chunks + chunk].
__global__ void argmax_chunks(const float* x, int64_t cols, int64_t chunk) {
    const int64_t row = blockIdx.y, begin = (int64_t)blockIdx.x * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    float best = -INFINITY;
    int64_t idx = INT64_MAX;
    scan(x + row * cols, begin + threadIdx.x, end, THREADS, best, idx);
    block_argmax(best, idx);
    if (threadIdx.x == 0) {
        g_part_v[row * gridDim.x + blockIdx.x] = best;
        g_part_i[row * gridDim.x + blockIdx.x] = idx;
    }
}

// One block per row: the best of the row's partials (lowest column on ties).
__global__ void argmax_finish(int64_t chunks, int64_t* y) {
    const int64_t row = blockIdx.x;
    float best = -INFINITY;
    int64_t idx = INT64_MAX;
    for (int64_t p = threadIdx.x; p < chunks; p += THREADS)
        take_better(best, idx, g_part_v[row * chunks + p], g_part_i[row * chunks + p]);
    block_argmax(best, idx);
    if (threadIdx.x == 0) y[row] = idx;
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      int64_t* y,       // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (cols <= 1024) {
        argmax_warp_per_row<<<(unsigned)((rows + WARPS - 1) / WARPS), THREADS, 0, st>>>(x, rows, cols, y);
        return cudaGetLastError() != cudaSuccess;
    }
    if (rows < SPLIT_ROWS) {
        int64_t chunks = (cols + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
        const int64_t per_row = (SPLIT_TARGET_BLOCKS + rows - 1) / rows;
        if (chunks > per_row) chunks = per_row;
        const int64_t chunk = (cols + chunks - 1) / chunks;
        chunks = (cols + chunk - 1) / chunk;  // every chunk holds at least one column
        if (chunks >= 2 && rows * chunks <= MAX_PARTS) {
            argmax_chunks<<<dim3((unsigned)chunks, (unsigned)rows), THREADS, 0, st>>>(x, cols, chunk);
            argmax_finish<<<(unsigned)rows, THREADS, 0, st>>>(chunks, y);
            return cudaGetLastError() != cudaSuccess;
        }
    }
    const int64_t blocks = rows < 2147483647 ? rows : 2147483647;
    argmax_block_per_row<<<(unsigned)blocks, THREADS, 0, st>>>(x, rows, cols, y);
    return cudaGetLastError() != cudaSuccess;
}
