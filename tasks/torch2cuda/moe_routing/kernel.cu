// MoE router: softmax over experts, top-k, renormalised top-k weights and expert ids. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* logits,  // [tokens, experts]
                      int64_t tokens,
                      int64_t experts,
                      int64_t k,
                      float* weights,       // [tokens, k] output
                      int64_t* ids,         // [tokens, k] output
                      void* stream) {
    (void)logits; (void)tokens; (void)experts; (void)k; (void)weights; (void)ids; (void)stream;
    return 0;
}
