// Add + RMSNorm: h = x + residual; y = h * rsqrt(mean(h^2) + eps) * weight; outputs (y, h), float32.
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,     // [rows, cols]
                      const float* res,   // [rows, cols] residual
                      const float* w,     // [cols] weight
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,           // [rows, cols] output 1: the normed rows
                      float* h,           // [rows, cols] output 2: x + residual
                      void* stream) {
    (void)x; (void)res; (void)w; (void)rows; (void)cols; (void)eps; (void)y; (void)h; (void)stream;
    return 0;
}
