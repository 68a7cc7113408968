// 3x3 convolution, stride 1, padding 1, with bias, float32 NCHW. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,       // [batch, cin, height, width]
                      const float* weight,  // [cout, cin, 3, 3]
                      const float* bias,    // [cout]
                      int64_t batch, int64_t cin, int64_t cout, int64_t height, int64_t width,
                      float* out,           // [batch, cout, height, width] output
                      void* stream) {
    (void)x; (void)weight; (void)bias; (void)batch; (void)cin; (void)cout; (void)height; (void)width;
    (void)out; (void)stream;
    return 0;
}
