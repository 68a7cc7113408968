// Paged-KV decode attention, bfloat16. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const uint16_t* q, const uint16_t* k_cache, const uint16_t* v_cache, const int32_t* block_tables,
                      const int32_t* seq_lens, float scale, int64_t B, int64_t Hq, int64_t Hkv, int64_t D,
                      int64_t block_size, int64_t max_blocks, uint16_t* out, void* stream) {
    return 0;
}
