// Argmax over rows: y[r] = the column of the largest x[r, :] (int64; first one on ties).
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel: one 256-thread block per row; each thread scans a strided
// slice of the row (coalesced across the block), then a shared-memory tree reduction picks the
// largest value, the smaller column on ties.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256

__global__ void argmax_block_per_row(const float* x, int64_t cols, int64_t* y) {
    __shared__ float sval[THREADS];
    __shared__ int64_t sidx[THREADS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float best = -INFINITY;
    int64_t idx = -1;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS)
        if (idx < 0 || xr[j] > best) { best = xr[j]; idx = j; }
    sval[threadIdx.x] = best;
    sidx[threadIdx.x] = idx;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            const float v = sval[threadIdx.x + s];
            const int64_t i = sidx[threadIdx.x + s];
            const int64_t mine = sidx[threadIdx.x];
            if (i >= 0 && (mine < 0 || v > sval[threadIdx.x] || (v == sval[threadIdx.x] && i < mine))) {
                sval[threadIdx.x] = v;
                sidx[threadIdx.x] = i;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) y[blockIdx.x] = sidx[0];
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      int64_t* y,       // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    argmax_block_per_row<<<(unsigned)rows, THREADS, 0, (cudaStream_t)stream>>>(x, cols, y);
    return cudaGetLastError() != cudaSuccess;
}
