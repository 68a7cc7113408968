// Linear + bias + GELU/SiLU epilogue, bfloat16. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const uint16_t* x, const uint16_t* w, const uint16_t* b, int64_t m, int64_t n, int64_t k,
                      int64_t act, uint16_t* out, void* stream) {
    return 0;
}
