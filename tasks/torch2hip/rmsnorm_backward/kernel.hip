// RMSNorm backward, bfloat16. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const uint16_t* dy, const uint16_t* x, const uint16_t* w, const float* rstd,
                      int64_t rows, int64_t cols, uint16_t* dx, uint16_t* dw, void* stream) {
    return 0;
}
