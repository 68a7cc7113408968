// GELU (tanh approximation): y[i] = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), float32.
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    (void)x; (void)n; (void)y; (void)stream;
    return 0;
}
