// Argmax over rows: y[r] = the column of the largest x[r, :] (int64; first one on ties).
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one thread per row walks the whole row alone. Neighbouring threads read
// addresses a row apart (no coalescing), and a few long rows leave almost all the GPU idle.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void argmax_thread_per_row(const float* x, int64_t rows, int64_t cols, int64_t* y) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float best = xr[0];
    int64_t idx = 0;
    for (int64_t j = 1; j < cols; ++j)
        if (xr[j] > best) { best = xr[j]; idx = j; }
    y[r] = idx;
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      int64_t* y,       // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    const int threads = 128;
    argmax_thread_per_row<<<(unsigned)((rows + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(x, rows, cols, y);
    return cudaGetLastError() != cudaSuccess;
}
