// Cross-entropy per row: loss[r] = logsumexp(x[r, :]) - x[r, target[r]], float32 (reduction 'none').
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one thread per row walks the row alone, twice (max, then sum of exp).
// Neighbouring threads touch addresses a row apart (no coalescing), and a few long rows leave
// almost all the GPU idle.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void cross_entropy_thread_per_row(const float* x, const int64_t* target, int64_t rows,
                                             int64_t cols, float* loss) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float m = -INFINITY;
    for (int64_t j = 0; j < cols; ++j) m = fmaxf(m, xr[j]);
    float s = 0.0f;
    for (int64_t j = 0; j < cols; ++j) s += expf(xr[j] - m);
    loss[r] = m + logf(s) - xr[target[r]];
}

extern "C" int launch(const float* x,           // [rows, cols] logits
                      const int64_t* target,    // [rows]
                      int64_t rows, int64_t cols,
                      float* loss,              // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    const int threads = 128;
    cross_entropy_thread_per_row<<<(unsigned)((rows + threads - 1) / threads), threads, 0, (hipStream_t)stream>>>(
        x, target, rows, cols, loss);
    return hipGetLastError() != hipSuccess;
}
