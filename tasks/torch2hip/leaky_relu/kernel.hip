// LeakyReLU: y[i] = x if x >= 0 else negative_slope * x, float32.
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float negative_slope,
                      float* y,         // [n] output
                      void* stream) {
    (void)x; (void)n; (void)negative_slope; (void)y; (void)stream;
    return 0;
}
