// LayerNorm: y[r, c] = (x[r, c] - mean_r) * rsqrt(var_r + eps) * w[c] + b[c], float32.
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,       // [rows, cols]
                      const float* w,       // [cols] weight
                      const float* b,       // [cols] bias
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,             // [rows, cols] output
                      void* stream) {
    (void)x; (void)w; (void)b; (void)rows; (void)cols; (void)eps; (void)y; (void)stream;
    return 0;
}
