// Causal varlen prefill attention with grouped-query heads, bfloat16. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const uint16_t* q, const uint16_t* k, const uint16_t* v, const int32_t* cu_seqlens, float scale,
                      int64_t B, int64_t Hq, int64_t Hkv, int64_t D, int64_t max_seqlen, int64_t total, uint16_t* out,
                      void* stream) {
    return 0;
}
