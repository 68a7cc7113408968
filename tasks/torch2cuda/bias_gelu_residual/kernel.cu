// y = gelu_tanh(x + bias) + residual, bfloat16 in and out, float32 math.
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

extern "C" int launch(const __nv_bfloat16* x,         // [rows, cols]
                      const __nv_bfloat16* bias,      // [cols]
                      const __nv_bfloat16* residual,  // [rows, cols]
                      int64_t rows, int64_t cols,
                      __nv_bfloat16* y,               // [rows, cols] output
                      void* stream) {
    (void)x; (void)bias; (void)residual; (void)rows; (void)cols; (void)y; (void)stream;
    return 0;
}
