// Row mean: y[r] = mean(x[r, :]) of a float32 [rows, cols] matrix.
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel, its layout picked by the row length:
//   * rows of up to 1024 columns: one warp per row (8 rows per 256-thread block), each lane a
//     strided slice, then a shuffle reduction;
//   * longer rows: one 256-thread block per row, strided coalesced loads, shuffles within each
//     warp and shared memory across the warps;
//   * fewer long rows than it takes to fill the GPU: each row is cut into chunks over many blocks;
//     a first launch writes each chunk's sum to a scratch buffer, a second one adds each row's
//     partials and divides.
// Scalar float loads, float32 sums.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define SPLIT_ROWS 128            // split rows when there are fewer than this many
#define SPLIT_CHUNK 4096          // columns per block in the split path (at least)
#define SPLIT_TARGET_BLOCKS 512   // blocks the split path aims for in all
#define MAX_PARTS 1024            // scratch partials: SPLIT_ROWS * chunks stays below this

__device__ float g_part[MAX_PARTS];

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off, 32);
    return v;
}

// Every thread of the block calls it; thread 0 gets the block's sum.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float s[WARPS];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) s[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_sum(lane < WARPS ? s[lane] : 0.0f);
    __syncthreads();  // s is free again for a next call
    return v;
}

__device__ __forceinline__ float strided_sum(const float* xr, int64_t first, int64_t end, int64_t step) {
    float s = 0.0f;
    for (int64_t j = first; j < end; j += step) s += xr[j];
    return s;
}

__global__ void row_mean_warp_per_row(const float* x, int64_t rows, int64_t cols, float* y) {
    const int64_t row = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (row >= rows) return;  // the whole warp leaves together
    const int lane = threadIdx.x % 32;
    const float s = warp_sum(strided_sum(x + row * cols, lane, cols, 32));
    if (lane == 0) y[row] = s / (float)cols;
}

__global__ void row_mean_block_per_row(const float* x, int64_t rows, int64_t cols, float* y) {
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float s = block_sum(strided_sum(x + row * cols, threadIdx.x, cols, THREADS));
        if (threadIdx.x == 0) y[row] = s / (float)cols;
    }
}

// grid (chunks, rows): the sum of chunk blockIdx.x of row blockIdx.y -> g_part[row * chunks + chunk].
__global__ void row_sum_chunks(const float* x, int64_t cols, int64_t chunk) {
    const int64_t row = blockIdx.y, begin = (int64_t)blockIdx.x * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const float s = block_sum(strided_sum(x + row * cols, begin + threadIdx.x, end, THREADS));
    if (threadIdx.x == 0) g_part[row * gridDim.x + blockIdx.x] = s;
}

// One block per row: the sum of the row's partials, divided by cols.
__global__ void row_mean_finish(int64_t chunks, int64_t cols, float* y) {
    const int64_t row = blockIdx.x;
    const float s = block_sum(strided_sum(g_part + row * chunks, threadIdx.x, chunks, THREADS));
    if (threadIdx.x == 0) y[row] = s / (float)cols;
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (cols <= 1024) {
        row_mean_warp_per_row<<<(unsigned)((rows + WARPS - 1) / WARPS), THREADS, 0, st>>>(x, rows, cols, y);
        return cudaGetLastError() != cudaSuccess;
    }
    if (rows < SPLIT_ROWS) {
        int64_t chunks = (cols + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
        const int64_t per_row = (SPLIT_TARGET_BLOCKS + rows - 1) / rows;
        if (chunks > per_row) chunks = per_row;
        const int64_t chunk = (cols + chunks - 1) / chunks;
        chunks = (cols + chunk - 1) / chunk;  // every chunk holds at least one column
        if (chunks >= 2 && rows * chunks <= MAX_PARTS) {
            row_sum_chunks<<<dim3((unsigned)chunks, (unsigned)rows), THREADS, 0, st>>>(x, cols, chunk);
            row_mean_finish<<<(unsigned)rows, THREADS, 0, st>>>(chunks, cols, y);
            return cudaGetLastError() != cudaSuccess;
        }
    }
    const int64_t blocks = rows < 2147483647 ? rows : 2147483647;
    row_mean_block_per_row<<<(unsigned)blocks, THREADS, 0, st>>>(x, rows, cols, y);
    return cudaGetLastError() != cudaSuccess;
}
