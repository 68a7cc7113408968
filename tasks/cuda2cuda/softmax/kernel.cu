// Row-wise softmax of a row-major float32 [rows, cols] matrix: y[r, :] = softmax(x[r, :]).
//
// Baseline: one thread per row, three sequential passes (max, sum of exp, write). Correct for
// any shape, but slow: neighbouring threads read addresses `cols` floats apart (uncoalesced),
// and rows with many columns leave most of the GPU idle.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__global__ void softmax_row_per_thread(const float* x, float* y, int64_t rows, int64_t cols) {
    int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float* yr = y + r * cols;

    float m = -INFINITY;  // subtract the row max so expf never overflows
    for (int64_t j = 0; j < cols; ++j) m = fmaxf(m, xr[j]);
    float s = 0.0f;
    for (int64_t j = 0; j < cols; ++j) s += expf(xr[j] - m);
    const float inv = 1.0f / s;
    for (int64_t j = 0; j < cols; ++j) yr[j] = expf(xr[j] - m) * inv;
}

extern "C" int launch(const float* x, int64_t rows, int64_t cols, float* y, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    const int threads = 256;
    const int64_t blocks = (rows + threads - 1) / threads;
    softmax_row_per_thread<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(x, y, rows, cols);
    return cudaGetLastError() != cudaSuccess;
}
