// 1-D max pooling of a float32 [batch, channels, length] tensor. See README.md.
//
// A straightforward first kernel: one output per thread in 256-thread blocks, the window read
// from global memory through the cache.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void maxpool_thread_per_output(const float* x, float* out, int64_t total, int64_t length,
                                          int64_t out_len, int64_t kernel_size, int64_t stride,
                                          int64_t padding) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    const int64_t row = i / out_len, o = i % out_len;
    float m = -INFINITY;
    for (int64_t j = 0; j < kernel_size; ++j) {
        const int64_t p = o * stride - padding + j;
        if (p >= 0 && p < length) m = fmaxf(m, x[row * length + p]);
    }
    out[i] = m;
}

extern "C" int launch(const float* x,       // [batch, channels, length]
                      int64_t batch, int64_t channels, int64_t length,
                      int64_t kernel_size, int64_t stride, int64_t padding,
                      float* out,            // [batch, channels, out_len] output
                      void* stream) {
    const int64_t out_len = (length + 2 * padding - kernel_size) / stride + 1;
    const int64_t total = batch * channels * out_len;
    if (total <= 0 || out_len <= 0) return 0;
    const int threads = 256;
    maxpool_thread_per_output<<<(unsigned)((total + threads - 1) / threads), threads, 0, (hipStream_t)stream>>>(
        x, out, total, length, out_len, kernel_size, stride, padding);
    return hipGetLastError() != hipSuccess;
}
