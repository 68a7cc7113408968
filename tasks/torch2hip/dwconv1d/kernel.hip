// Depthwise 1-D convolution (odd kernel, same padding, bias), float32. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,       // [batch, channels, length]
                      const float* weight,  // [channels, 1, kernel_size]
                      const float* bias,    // [channels]
                      int64_t batch, int64_t channels, int64_t length, int64_t kernel_size,
                      float* out,            // [batch, channels, length] output
                      void* stream) {
    (void)x; (void)weight; (void)bias; (void)batch; (void)channels; (void)length;
    (void)kernel_size; (void)out; (void)stream;
    return 0;
}
