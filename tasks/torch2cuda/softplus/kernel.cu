// Softplus, y = log(1 + exp(x)) (x itself past 20), float32. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,   // [n]
                      int64_t n,
                      float* y,         // [n] output
                      void* stream) {
    (void)x; (void)n; (void)y; (void)stream;
    return 0;
}
