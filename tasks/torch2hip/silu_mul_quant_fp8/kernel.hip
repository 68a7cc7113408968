// SwiGLU fused with per-token FP8 (e4m3fn) quantisation. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const uint16_t* x, int64_t tokens, int64_t inter, uint8_t* q, float* scale, void* stream) {
    return 0;
}
