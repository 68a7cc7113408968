// Inclusive prefix sum along each row: y[r, c] = x[r, 0] + ... + x[r, c], float32.
//
// Memory-bound: x read once, y written once. A row is walked in tiles; in a tile each lane takes
// ITEMS consecutive elements and scans them serially, the lanes' totals are scanned with
// shuffles in groups of 32 (one HIP warp; half a CDNA wavefront, which works too), and a running
// carry links the tiles. Rows up to 4096 columns get one group of 32 lanes each (8 rows per
// block); longer rows one block of 1024 threads, the groups' totals scanned through shared memory.
#include <hip/hip_runtime.h>
#include <stdint.h>

constexpr int GROUP = 32;
constexpr int ITEMS = 4;

// Inclusive scan over the 32 lanes of a group (lane = index in the group).
__device__ __forceinline__ float group_scan(float v, int lane) {
    for (int d = 1; d < GROUP; d <<= 1) {
        const float o = __shfl_up(v, d, GROUP);
        if (lane >= d) v += o;
    }
    return v;
}

// Loads this lane's ITEMS elements at j0.., scans them in place; returns their total.
__device__ __forceinline__ float load_scan(const float* __restrict__ xr, int64_t j0, int64_t cols, float (&a)[ITEMS]) {
    float run = 0.0f;
    for (int k = 0; k < ITEMS; ++k) {
        run += (j0 + k < cols) ? xr[j0 + k] : 0.0f;
        a[k] = run;
    }
    return run;
}

__device__ __forceinline__ void store(float* __restrict__ yr, int64_t j0, int64_t cols, const float (&a)[ITEMS], float prefix) {
    for (int k = 0; k < ITEMS; ++k)
        if (j0 + k < cols) yr[j0 + k] = a[k] + prefix;
}

// One group of 32 lanes per row.
__global__ void cumsum_group(const float* __restrict__ x, int64_t rows, int64_t cols, float* __restrict__ y) {
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / GROUP;
    const int lane = threadIdx.x % GROUP;
    if (row >= rows) return;  // whole groups leave together (blockDim.x is a multiple of 32)
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float carry = 0.0f;
    for (int64_t t = 0; t < cols; t += GROUP * ITEMS) {
        const int64_t j0 = t + (int64_t)lane * ITEMS;
        float a[ITEMS];
        const float total = load_scan(xr, j0, cols, a);
        const float incl = group_scan(total, lane);
        store(yr, j0, cols, a, carry + incl - total);
        carry += __shfl(incl, GROUP - 1, GROUP);
    }
}

// One block of 1024 threads per row.
__global__ void __launch_bounds__(1024) cumsum_block(const float* __restrict__ x, int64_t rows, int64_t cols, float* __restrict__ y) {
    __shared__ float group_total[1024 / GROUP];
    const int lane = threadIdx.x % GROUP, group = threadIdx.x / GROUP;
    const int ngroups = blockDim.x / GROUP;
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* xr = x + row * cols;
        float* yr = y + row * cols;
        float carry = 0.0f;
        for (int64_t t = 0; t < cols; t += (int64_t)blockDim.x * ITEMS) {
            const int64_t j0 = t + (int64_t)threadIdx.x * ITEMS;
            float a[ITEMS];
            const float total = load_scan(xr, j0, cols, a);
            const float incl = group_scan(total, lane);
            if (lane == GROUP - 1) group_total[group] = incl;
            __syncthreads();
            if (threadIdx.x < GROUP) {  // group 0 scans the groups' totals in place
                const float g = (int)threadIdx.x < ngroups ? group_total[threadIdx.x] : 0.0f;
                const float s = group_scan(g, lane);
                if ((int)threadIdx.x < ngroups) group_total[threadIdx.x] = s;
            }
            __syncthreads();
            const float before = group > 0 ? group_total[group - 1] : 0.0f;
            store(yr, j0, cols, a, carry + before + incl - total);
            carry += group_total[ngroups - 1];
            __syncthreads();  // group_total is rewritten by the next tile
        }
    }
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (cols <= 4096) {
        const int threads = 256;
        const int64_t rows_per_block = threads / GROUP;
        cumsum_group<<<(unsigned)((rows + rows_per_block - 1) / rows_per_block), threads, 0, st>>>(x, rows, cols, y);
    } else {
        const int64_t blocks = rows < 65535 * 8 ? rows : 65535 * 8;
        cumsum_block<<<(unsigned)blocks, 1024, 0, st>>>(x, rows, cols, y);
    }
    return hipGetLastError() != hipSuccess;
}
