// Batched matrix multiply of small float32 matrices, C[b] = A[b] @ B[b]. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* a,   // [batch, m, k]
                      const float* b,   // [batch, k, n]
                      int64_t batch, int64_t m, int64_t n, int64_t k,
                      float* c,         // [batch, m, n] output
                      void* stream) {
    (void)a; (void)b; (void)batch; (void)m; (void)n; (void)k; (void)c; (void)stream;
    return 0;
}
