// 1-D max pooling of a float32 [batch, channels, length] tensor. See README.md.
//
// Correct but slow: one thread per (batch, channel) row walks all of the row's outputs alone.
// Neighbouring threads read addresses a row apart (no coalescing), and few long rows leave almost
// all the GPU idle.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void maxpool_thread_per_row(const float* x, float* out, int64_t rows, int64_t length,
                                       int64_t out_len, int64_t kernel_size, int64_t stride,
                                       int64_t padding) {
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    for (int64_t o = 0; o < out_len; ++o) {
        float m = -INFINITY;
        for (int64_t j = 0; j < kernel_size; ++j) {
            const int64_t p = o * stride - padding + j;
            if (p >= 0 && p < length) m = fmaxf(m, x[row * length + p]);
        }
        out[row * out_len + o] = m;
    }
}

extern "C" int launch(const float* x,       // [batch, channels, length]
                      int64_t batch, int64_t channels, int64_t length,
                      int64_t kernel_size, int64_t stride, int64_t padding,
                      float* out,            // [batch, channels, out_len] output
                      void* stream) {
    const int64_t rows = batch * channels;
    const int64_t out_len = (length + 2 * padding - kernel_size) / stride + 1;
    if (rows <= 0 || out_len <= 0) return 0;
    const int threads = 128;
    maxpool_thread_per_row<<<(unsigned)((rows + threads - 1) / threads), threads, 0, (hipStream_t)stream>>>(
        x, out, rows, length, out_len, kernel_size, stride, padding);
    return hipGetLastError() != hipSuccess;
}
