// 1-D max pooling of a float32 [batch, channels, length] tensor.
//
// Memory-bound: one thread per output, consecutive threads on consecutive outputs of a row, so the
// window reads of a warp cover one contiguous span (neighbouring windows overlap and hit in L1).
// The window size is a template parameter (2..5), so the taps unroll.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

template <int KS>
__global__ void maxpool_rows(const float* __restrict__ x, float* __restrict__ out, int64_t rows,
                             int64_t length, int64_t out_len, int64_t stride, int64_t padding) {
    const int64_t total = rows * out_len;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = t / out_len, o = t - row * out_len;
        const float* xr = x + row * length;
        const int64_t start = o * stride - padding;
        float m = -INFINITY;
#pragma unroll
        for (int j = 0; j < KS; ++j) {
            const int64_t p = start + j;
            if (p >= 0 && p < length) m = fmaxf(m, __ldg(xr + p));
        }
        out[t] = m;
    }
}

template <int KS>
static void launch_ks(const float* x, float* out, int64_t rows, int64_t length, int64_t out_len,
                      int64_t stride, int64_t padding, cudaStream_t st) {
    const int threads = 256;
    int64_t blocks = (rows * out_len + threads - 1) / threads;
    if (blocks > 65536) blocks = 65536;  // grid-stride beyond
    maxpool_rows<KS><<<(unsigned)blocks, threads, 0, st>>>(x, out, rows, length, out_len, stride, padding);
}

extern "C" int launch(const float* x,       // [batch, channels, length]
                      int64_t batch, int64_t channels, int64_t length,
                      int64_t kernel_size, int64_t stride, int64_t padding,
                      float* out,            // [batch, channels, out_len] output
                      void* stream) {
    if (kernel_size < 1 || kernel_size > 5 || stride < 1) return 1;  // outside the contract
    const int64_t rows = batch * channels;
    const int64_t out_len = (length + 2 * padding - kernel_size) / stride + 1;
    if (rows <= 0 || out_len <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    switch (kernel_size) {
        case 1: launch_ks<1>(x, out, rows, length, out_len, stride, padding, st); break;
        case 2: launch_ks<2>(x, out, rows, length, out_len, stride, padding, st); break;
        case 3: launch_ks<3>(x, out, rows, length, out_len, stride, padding, st); break;
        case 4: launch_ks<4>(x, out, rows, length, out_len, stride, padding, st); break;
        default: launch_ks<5>(x, out, rows, length, out_len, stride, padding, st); break;
    }
    return cudaGetLastError() != cudaSuccess;
}
