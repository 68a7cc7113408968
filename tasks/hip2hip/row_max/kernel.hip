// Row maximum: y[r] = max_c x[r, c] of a row-major float32 [rows, cols] matrix (values only).
// See README.md for the semantics and the argument layout.
//
// Baseline: a straightforward first kernel, x read once, its layout picked by the row length:
//   * rows of up to 1024 columns: one warp per row (8 rows per 256-thread block), each lane a
//     strided slice, then a shuffle reduction;
//   * longer rows: one 256-thread block per row, strided coalesced loads, shuffles within each
//     warp and shared memory across the warps;
//   * fewer long rows than it takes to fill the GPU: each row is cut into chunks over many blocks;
//     a first launch writes each chunk's max to a scratch buffer, a second one takes the max of
//     each row's partials.
// A "warp" here is a 32-lane group (half a 64-wide wavefront on CDNA): shuffles have width 32.
// A NaN in a row makes its max NaN, as in torch.amax. Correct for any shape, but not tuned: every
// load is a scalar float, a narrow row (a few dozen columns, or one) leaves most lanes of its warp
// idle, and the split path pays for a second launch.
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define SPLIT_ROWS 512            // split long rows when there are fewer than this many
#define SPLIT_CHUNK 4096          // columns per block in the split path (at least)
#define SPLIT_TARGET_BLOCKS 1024  // blocks the split path aims for in all
#define MAX_PARTS 2048            // scratch partials: rows * chunks must fit

__device__ float g_part[MAX_PARTS];  // one per process: calls running at once on two streams would share it

// The larger of a and b, or NaN if either is NaN (fmaxf would drop the NaN).
__device__ __forceinline__ float max_nan(float a, float b) { return (a > b || a != a) ? a : b; }

__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = max_nan(v, __shfl_xor(v, off, 32));
    return v;
}

// Every thread of the block calls it and gets the block's max.
__device__ __forceinline__ float block_max(float v) {
    __shared__ float s[WARPS];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_max(v);
    if (lane == 0) s[warp] = v;
    __syncthreads();
    v = warp_max(lane < WARPS ? s[lane] : -INFINITY);
    __syncthreads();  // s is free again for a next call
    return v;
}

__device__ __forceinline__ float strided_max(const float* xr, int64_t first, int64_t end, int64_t step) {
    float m = -INFINITY;
    for (int64_t j = first; j < end; j += step) m = max_nan(m, xr[j]);
    return m;
}

__global__ void row_max_warp_per_row(const float* x, int64_t rows, int64_t cols, float* y) {
    const int64_t row = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (row >= rows) return;  // the whole warp leaves together
    const int lane = threadIdx.x % 32;
    const float m = warp_max(strided_max(x + row * cols, lane, cols, 32));
    if (lane == 0) y[row] = m;
}

__global__ void row_max_block_per_row(const float* x, int64_t rows, int64_t cols, float* y) {
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float m = block_max(strided_max(x + row * cols, threadIdx.x, cols, THREADS));
        if (threadIdx.x == 0) y[row] = m;
    }
}

// grid (chunks, rows): the max of chunk blockIdx.x of row blockIdx.y -> g_part[row * chunks + chunk].
__global__ void row_max_chunks(const float* x, int64_t cols, int64_t chunk) {
    const int64_t row = blockIdx.y, begin = (int64_t)blockIdx.x * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const float m = block_max(strided_max(x + row * cols, begin + threadIdx.x, end, THREADS));
    if (threadIdx.x == 0) g_part[row * gridDim.x + blockIdx.x] = m;
}

// One block per row: the max of the row's partials.
__global__ void row_max_finish(int64_t chunks, float* y) {
    const int64_t row = blockIdx.x;
    const float m = block_max(strided_max(g_part + row * chunks, threadIdx.x, chunks, THREADS));
    if (threadIdx.x == 0) y[row] = m;
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (cols <= 1024) {
        row_max_warp_per_row<<<(unsigned)((rows + WARPS - 1) / WARPS), THREADS, 0, st>>>(x, rows, cols, y);
        return hipGetLastError() != hipSuccess;
    }
    if (rows < SPLIT_ROWS) {
        int64_t chunks = (cols + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
        const int64_t per_row = (SPLIT_TARGET_BLOCKS + rows - 1) / rows;
        if (chunks > per_row) chunks = per_row;
        const int64_t chunk = (cols + chunks - 1) / chunks;
        chunks = (cols + chunk - 1) / chunk;  // every chunk holds at least one column
        if (chunks >= 2 && rows * chunks <= MAX_PARTS) {
            row_max_chunks<<<dim3((unsigned)chunks, (unsigned)rows), THREADS, 0, st>>>(x, cols, chunk);
            row_max_finish<<<(unsigned)rows, THREADS, 0, st>>>(chunks, y);
            return hipGetLastError() != hipSuccess;
        }
    }
    const int64_t blocks = rows < 2147483647 ? rows : 2147483647;
    row_max_block_per_row<<<(unsigned)blocks, THREADS, 0, st>>>(x, rows, cols, y);
    return hipGetLastError() != hipSuccess;
}
