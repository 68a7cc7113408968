// Inclusive prefix sum along each row: y[r, c] = x[r, 0] + ... + x[r, c], float32.
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one thread per row runs the sum serially (in double, so long rows stay
// accurate). Neighbouring threads touch addresses a row apart (no coalescing), and a few long
// rows leave almost all the GPU idle.
#include <hip/hip_runtime.h>
#include <stdint.h>

__global__ void cumsum_thread_per_row(const float* x, int64_t rows, int64_t cols, float* y) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    double run = 0.0;
    for (int64_t j = 0; j < cols; ++j) {
        run += x[r * cols + j];
        y[r * cols + j] = (float)run;
    }
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    const int threads = 128;
    cumsum_thread_per_row<<<(unsigned)((rows + threads - 1) / threads), threads, 0, (hipStream_t)stream>>>(x, rows, cols, y);
    return hipGetLastError() != hipSuccess;
}
