// GeGLU: y[r, c] = gelu(x[r, c]) * x[r, hidden + c], exact (erf) GELU, float32. See README.md.
//
// A straightforward first kernel: a 2-D grid, blockIdx.y walks rows (in a loop past 65535) and
// blockIdx.x covers a row's columns, one output per thread in 256-thread blocks, float32 erff.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void geglu_kernel(const float* x, int64_t rows, int64_t hidden, float* y) {
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= hidden) return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const float g = x[r * 2 * hidden + c];
        const float u = x[r * 2 * hidden + hidden + c];
        y[r * hidden + c] = 0.5f * g * (1.0f + erff(g * 0.70710678118654752f)) * u;
    }
}

extern "C" int launch(const float* x,   // [rows, 2 * hidden]: gate columns, then up columns
                      int64_t rows, int64_t hidden,
                      float* y,         // [rows, hidden] output
                      void* stream) {
    if (rows <= 0 || hidden <= 0) return 0;
    const int threads = 256;
    const dim3 grid((unsigned)((hidden + threads - 1) / threads), (unsigned)(rows < 65535 ? rows : 65535));
    geglu_kernel<<<grid, threads, 0, (cudaStream_t)stream>>>(x, rows, hidden, y);
    return cudaGetLastError() != cudaSuccess;
}
