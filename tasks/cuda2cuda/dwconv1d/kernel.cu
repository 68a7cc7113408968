// Depthwise 1-D convolution (odd kernel, same padding, bias), float32. See README.md.
//
// Correct but slow: one thread per (batch, channel) row walks the whole row alone, re-reading
// the weights and every x element kernel_size times from global memory. Neighbouring threads
// read addresses a row apart (no coalescing), and few long rows leave almost all the GPU idle.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void dwconv_thread_per_row(const float* x, const float* w, const float* bias, float* out,
                                      int64_t rows, int64_t channels, int64_t length, int64_t ks) {
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const int64_t c = row % channels, half = ks / 2;
    for (int64_t t = 0; t < length; ++t) {
        float acc = bias[c];
        for (int64_t j = 0; j < ks; ++j) {
            const int64_t p = t + j - half;
            if (p >= 0 && p < length) acc += w[c * ks + j] * x[row * length + p];
        }
        out[row * length + t] = acc;
    }
}

extern "C" int launch(const float* x,       // [batch, channels, length]
                      const float* weight,  // [channels, 1, kernel_size]
                      const float* bias,    // [channels]
                      int64_t batch, int64_t channels, int64_t length, int64_t kernel_size,
                      float* out,            // [batch, channels, length] output
                      void* stream) {
    const int64_t rows = batch * channels;
    if (rows <= 0 || length <= 0) return 0;
    const int threads = 128;
    dwconv_thread_per_row<<<(unsigned)((rows + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        x, weight, bias, out, rows, channels, length, kernel_size);
    return cudaGetLastError() != cudaSuccess;
}
