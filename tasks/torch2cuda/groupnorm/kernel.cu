// GroupNorm: per (batch, group) mean / variance over (channels / groups) * hw elements, then
// y = (x - mean) * rsqrt(var + eps) * w[channel] + b[channel], float32.
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,       // [batch, channels, hw]
                      const float* w,       // [channels] weight
                      const float* b,       // [channels] bias
                      int64_t batch, int64_t channels, int64_t hw, int64_t groups,
                      float eps,
                      float* y,             // [batch, channels, hw] output
                      void* stream) {
    (void)x; (void)w; (void)b; (void)batch; (void)channels; (void)hw; (void)groups; (void)eps;
    (void)y; (void)stream;
    return 0;
}
