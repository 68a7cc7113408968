// 1-D max pooling of a float32 [batch, channels, length] tensor. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,       // [batch, channels, length]
                      int64_t batch, int64_t channels, int64_t length,
                      int64_t kernel_size, int64_t stride, int64_t padding,
                      float* out,            // [batch, channels, out_len] output
                      void* stream) {
    (void)x; (void)batch; (void)channels; (void)length; (void)kernel_size; (void)stride;
    (void)padding; (void)out; (void)stream;
    return 0;
}
