// Embedding lookup: out[t, :] = weight[indices[t], :], float16.
// float16 values are moved as raw 16-bit patterns (a copy needs no arithmetic). See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const uint16_t* weight,     // [vocab, dim]
                      const int64_t* indices,  // [tokens]
                      int64_t tokens, int64_t dim,
                      uint16_t* out,             // [tokens, dim] output
                      void* stream) {
    (void)weight; (void)indices; (void)tokens; (void)dim; (void)out; (void)stream;
    return 0;
}
