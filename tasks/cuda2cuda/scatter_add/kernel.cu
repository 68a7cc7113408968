// Scatter-add of rows: out = x.clone(); out[index[i], :] += src[i, :] for every i, float32.
// See README.md for the argument layout.
//
// Correct but slow: a copy with one element per thread in 64-thread blocks, then one whole src
// row per thread, added element by element with atomicAdd (neighbouring threads touch addresses
// a row apart, so no access is coalesced, and a wide row is a long serial loop).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void copy_naive(const float* x, float* out, int64_t total) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) out[i] = x[i];
}

__global__ void scatter_row_per_thread(const int64_t* index, const float* src, float* out,
                                       int64_t n, int64_t dim) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;   // src row
    if (i >= n) return;
    const int64_t r = index[i];
    for (int64_t d = 0; d < dim; ++d) atomicAdd(&out[r * dim + d], src[i * dim + d]);
}

extern "C" int launch(const float* x,        // [rows, dim]
                      const int64_t* index,  // [n]
                      const float* src,      // [n, dim]
                      int64_t rows, int64_t n, int64_t dim,
                      float* out,            // [rows, dim] output
                      void* stream) {
    if (rows <= 0 || dim <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int threads = 64;
    const int64_t total = rows * dim;   // <= 4G elements: at most 64M blocks, inside gridDim.x
    copy_naive<<<(unsigned)((total + threads - 1) / threads), threads, 0, st>>>(x, out, total);
    if (n > 0)   // launched after the copy on the same stream, so the adds see it
        scatter_row_per_thread<<<(unsigned)((n + threads - 1) / threads), threads, 0, st>>>(index, src, out, n, dim);
    return cudaGetLastError() != cudaSuccess;
}
