// Depthwise 1-D convolution (odd kernel, same padding, bias), float32. See README.md.
//
// A straightforward first kernel: one output per thread in 256-thread blocks (neighbouring
// threads read neighbouring x), weights and x read from global memory through the cache.
#include <hip/hip_runtime.h>
#include <stdint.h>

__global__ void dwconv_thread_per_output(const float* x, const float* w, const float* bias, float* out,
                                         int64_t total, int64_t channels, int64_t length, int64_t ks) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    const int64_t row = i / length, t = i % length;
    const int64_t c = row % channels, half = ks / 2;
    float acc = bias[c];
    for (int64_t j = 0; j < ks; ++j) {
        const int64_t p = t + j - half;
        if (p >= 0 && p < length) acc += w[c * ks + j] * x[row * length + p];
    }
    out[i] = acc;
}

extern "C" int launch(const float* x,       // [batch, channels, length]
                      const float* weight,  // [channels, 1, kernel_size]
                      const float* bias,    // [channels]
                      int64_t batch, int64_t channels, int64_t length, int64_t kernel_size,
                      float* out,            // [batch, channels, length] output
                      void* stream) {
    const int64_t total = batch * channels * length;
    if (total <= 0) return 0;
    const int threads = 256;
    dwconv_thread_per_output<<<(unsigned)((total + threads - 1) / threads), threads, 0, (hipStream_t)stream>>>(
        x, weight, bias, out, total, channels, length, kernel_size);
    return hipGetLastError() != hipSuccess;
}
