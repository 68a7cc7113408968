// RMSNorm: y[r, c] = x[r, c] * rsqrt(mean(x[r, :]^2) + eps) * weight[c], float32.
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,       // [rows, cols]
                      const float* weight,  // [cols]
                      int64_t rows, int64_t cols,
                      float eps,
                      float* y,             // [rows, cols] output
                      void* stream) {
    (void)x; (void)weight; (void)rows; (void)cols; (void)eps; (void)y; (void)stream;
    return 0;
}
