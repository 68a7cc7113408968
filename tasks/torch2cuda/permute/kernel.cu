// Permute (0, 2, 1, 3): float16 [batch, seq, heads, dim] -> contiguous [batch, heads, seq, dim].
// See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

extern "C" int launch(const __half* x,   // [batch, seq, heads, dim]
                      int64_t batch, int64_t seq, int64_t heads, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    (void)x; (void)batch; (void)seq; (void)heads; (void)dim; (void)out; (void)stream;
    return 0;
}
