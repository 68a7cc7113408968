// Embedding lookup: out[t, :] = weight[indices[t], :], float16. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

extern "C" int launch(const __half* weight,    // [vocab, dim]
                      const int64_t* indices,  // [tokens]
                      int64_t tokens, int64_t dim,
                      __half* out,             // [tokens, dim] output
                      void* stream) {
    (void)weight; (void)indices; (void)tokens; (void)dim; (void)out; (void)stream;
    return 0;
}
