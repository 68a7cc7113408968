// GeGLU: y[r, c] = gelu(x[r, c]) * x[r, hidden + c], exact (erf) GELU, float32.
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one output element per thread in 64-thread blocks, a 64-bit division and
// modulo per element to find its row, scalar 4-byte accesses, and the math in double precision.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void geglu_naive(const float* x, int64_t rows, int64_t hidden, float* y) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * hidden) return;
    const int64_t r = i / hidden, c = i % hidden;
    const double g = (double)x[r * 2 * hidden + c];
    const double u = (double)x[r * 2 * hidden + hidden + c];
    y[i] = (float)(0.5 * g * (1.0 + erf(g * 0.70710678118654752)) * u);
}

extern "C" int launch(const float* x,   // [rows, 2 * hidden]: gate columns, then up columns
                      int64_t rows, int64_t hidden,
                      float* y,         // [rows, hidden] output
                      void* stream) {
    if (rows <= 0 || hidden <= 0) return 0;
    const int threads = 64;
    // rows * hidden <= 32M elements: at most 500K blocks, well inside gridDim.x.
    const int64_t blocks = (rows * hidden + threads - 1) / threads;
    geglu_naive<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(x, rows, hidden, y);
    return cudaGetLastError() != cudaSuccess;
}
