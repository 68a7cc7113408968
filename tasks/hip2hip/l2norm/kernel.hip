// Row-wise L2 normalisation: y[r, c] = x[r, c] / max(||x[r, :]||_2, eps), float32.
// See README.md for the semantics and the argument layout.
//
// Baseline: a straightforward first kernel, two passes over each row of x (the sum of squares,
// then y = x / max(sqrt(sum), eps)), y written once:
//   * rows of up to 1024 columns: one 32-lane group per row (8 rows per 256-thread block), the sum
//     reduced by shuffles of width 32 (a "warp" below is such a group: half of a 64-wide wavefront
//     on CDNA, a whole one on 32-wide hardware);
//   * longer rows: one 512-thread block per row, shuffles within each group and shared memory
//     across the groups;
//   * long rows too few to fill the GPU (fewer than SPLIT_TARGET of them): each row split over
//     several 512-thread blocks of at least SPLIT_MIN_COLS columns, in two launches: the first
//     writes each block's partial sum of squares to a static buffer, the second sums the row's
//     partials and writes its part of y.
// Correct for any shape, but not tuned: x is read twice (the second read mostly hits the caches,
// except on the split rows, which do not fit them), every load is a scalar float, and the split
// sizes are fixed guesses (not the GPU's SM count) that cost a second launch.
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>

#define WARP_ROWS 8            // rows (32-lane groups) per 256-thread block in the short-row path
#define BLOCK 512              // threads per row (or per part of a row) in the long-row paths
#define SPLIT_TARGET 1024      // split the rows when there are fewer rows than this many blocks
#define SPLIT_MIN_COLS 4096    // columns per block of a split row, at least
#define MAX_PARTIALS 2048      // rows * splits < SPLIT_TARGET + rows < 2 * SPLIT_TARGET

// One partial sum of squares per block of the split path, [rows][splits]. A static buffer: two
// calls running at once on different streams would share it (the harness makes one call at a time).
__device__ float g_partials[MAX_PARTIALS];

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor(v, off, 32);
    return v;
}

// Block-wide sum (blockDim.x == BLOCK); every thread returns the result.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float s[BLOCK / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) s[warp] = v;
    __syncthreads();
    v = warp_sum(lane < BLOCK / 32 ? s[lane] : 0.0f);
    __syncthreads();  // s is free again for a next call
    return v;
}

__global__ void l2norm_warp_per_row(const float* x, int64_t rows, int64_t cols, float eps, float* y) {
    const int64_t r = (int64_t)blockIdx.x * WARP_ROWS + threadIdx.x / 32;
    if (r >= rows) return;  // the whole 32-lane group leaves together
    const int lane = threadIdx.x % 32;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float ss = 0.0f;
    for (int64_t j = lane; j < cols; j += 32) ss += xr[j] * xr[j];
    const float inv = 1.0f / fmaxf(sqrtf(warp_sum(ss)), eps);
    for (int64_t j = lane; j < cols; j += 32) yr[j] = xr[j] * inv;
}

__global__ void l2norm_block_per_row(const float* x, int64_t rows, int64_t cols, float eps, float* y) {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;
        float ss = 0.0f;
        for (int64_t j = threadIdx.x; j < cols; j += BLOCK) ss += xr[j] * xr[j];
        const float inv = 1.0f / fmaxf(sqrtf(block_sum(ss)), eps);
        for (int64_t j = threadIdx.x; j < cols; j += BLOCK) yr[j] = xr[j] * inv;
    }
}

// Split path, pass 1: block b = r * splits + s sums the squares of columns [s * chunk, (s + 1) * chunk)
// of row r into g_partials[b].
__global__ void l2norm_split_partials(const float* x, int64_t cols, int splits, int64_t chunk) {
    const int64_t r = blockIdx.x / splits;
    const int64_t begin = (int64_t)(blockIdx.x % splits) * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    const float* xr = x + r * cols;
    float ss = 0.0f;
    for (int64_t j = begin + threadIdx.x; j < end; j += BLOCK) ss += xr[j] * xr[j];
    ss = block_sum(ss);
    if (threadIdx.x == 0) g_partials[blockIdx.x] = ss;
}

// Split path, pass 2 (the next launch on the stream, so every partial is written): each block
// sums its row's partials and writes its columns of y.
__global__ void l2norm_split_output(const float* x, int64_t cols, int splits, int64_t chunk, float eps,
                                    float* y) {
    const int64_t r = blockIdx.x / splits;
    const int64_t begin = (int64_t)(blockIdx.x % splits) * chunk;
    const int64_t end = begin + chunk < cols ? begin + chunk : cols;
    float ss = 0.0f;
    for (int i = threadIdx.x; i < splits; i += BLOCK) ss += g_partials[r * splits + i];
    const float inv = 1.0f / fmaxf(sqrtf(block_sum(ss)), eps);
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    for (int64_t j = begin + threadIdx.x; j < end; j += BLOCK) yr[j] = xr[j] * inv;
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,         // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (cols <= 1024) {
        const int64_t blocks = (rows + WARP_ROWS - 1) / WARP_ROWS;
        l2norm_warp_per_row<<<(unsigned)blocks, WARP_ROWS * 32, 0, st>>>(x, rows, cols, eps, y);
        return hipGetLastError() != hipSuccess;
    }
    int64_t splits = 1;
    if (rows < SPLIT_TARGET) {
        const int64_t by_cols = (cols + SPLIT_MIN_COLS - 1) / SPLIT_MIN_COLS;
        const int64_t by_rows = (SPLIT_TARGET + rows - 1) / rows;
        splits = by_cols < by_rows ? by_cols : by_rows;
    }
    if (splits > 1 && rows * splits <= MAX_PARTIALS) {
        const int64_t chunk = (cols + splits - 1) / splits;
        const unsigned blocks = (unsigned)(rows * splits);
        l2norm_split_partials<<<blocks, BLOCK, 0, st>>>(x, cols, (int)splits, chunk);
        l2norm_split_output<<<blocks, BLOCK, 0, st>>>(x, cols, (int)splits, chunk, eps, y);
    } else {
        const int64_t blocks = rows < 2147483647 ? rows : 2147483647;
        l2norm_block_per_row<<<(unsigned)blocks, BLOCK, 0, st>>>(x, rows, cols, eps, y);
    }
    return hipGetLastError() != hipSuccess;
}
