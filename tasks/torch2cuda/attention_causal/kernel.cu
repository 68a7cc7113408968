// Causal attention (prefill): out = softmax(mask(q k^T / sqrt(dim))) v per (sequence, head),
// float16 q, k, v and out, float32 math; dim = 64. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

extern "C" int launch(const __half* q,   // [batch, heads, seq, dim]
                      const __half* k,   // [batch, heads, seq, dim]
                      const __half* v,   // [batch, heads, seq, dim]
                      int64_t batch, int64_t heads, int64_t seq, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    (void)q; (void)k; (void)v; (void)batch; (void)heads; (void)seq; (void)dim; (void)out; (void)stream;
    return 0;
}
