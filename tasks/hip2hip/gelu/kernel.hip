// GELU (tanh approximation): y[i] = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), float32.
// See README.md for the semantics and the argument layout.
//
// Correct but slow: a fixed small grid where each thread walks its own contiguous chunk of the
// vector (neighbouring threads touch addresses a chunk apart, so no access is coalesced), and
// the math is done in double precision.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void gelu_chunked(const float* x, float* y, int64_t n, int64_t chunk) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t begin = t * chunk;
    for (int64_t i = begin; i < begin + chunk && i < n; ++i) {
        const double v = x[i];
        const double u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
        y[i] = (float)(0.5 * v * (1.0 + tanh(u)));
    }
}

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    if (n <= 0) return 0;
    const int blocks = 64, threads = 128;
    const int64_t chunk = (n + (int64_t)blocks * threads - 1) / ((int64_t)blocks * threads);
    gelu_chunked<<<blocks, threads, 0, (hipStream_t)stream>>>(x, y, n, chunk);
    return hipGetLastError() != hipSuccess;
}
