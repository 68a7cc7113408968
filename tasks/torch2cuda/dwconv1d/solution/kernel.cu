// Depthwise 1-D convolution (odd kernel, same padding, bias), float32.
//
// Memory-bound: each x element is read by KS neighbouring outputs. A block owns a TILE-wide
// stretch of one (batch, channel) row: it stages the stretch plus its KS - 1 halo in shared
// memory (coalesced, zero outside the row), keeps the channel's KS weights and bias in registers,
// and each thread writes TILE / threads outputs. The kernel size is a template parameter, so the
// taps unroll.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int THREADS = 256;
constexpr int TILE = 1024;

template <int KS>
__global__ void __launch_bounds__(THREADS) dwconv_tiles(const float* __restrict__ x, const float* __restrict__ w,
                                                        const float* __restrict__ bias, float* __restrict__ out,
                                                        int64_t rows, int64_t channels, int64_t length,
                                                        int64_t tiles_per_row) {
    constexpr int HALF = KS / 2;
    __shared__ float s[TILE + KS - 1];
    for (int64_t t = blockIdx.x; t < rows * tiles_per_row; t += gridDim.x) {
        const int64_t row = t / tiles_per_row, start = (t - row * tiles_per_row) * TILE;
        const int64_t c = row % channels;
        const float* xr = x + row * length;
        float wk[KS];
#pragma unroll
        for (int j = 0; j < KS; ++j) wk[j] = __ldg(w + c * KS + j);
        const float b = __ldg(bias + c);
        __syncthreads();  // the previous tile's readers are done with s
        for (int i = threadIdx.x; i < TILE + KS - 1; i += THREADS) {
            const int64_t p = start + i - HALF;
            s[i] = (p >= 0 && p < length) ? xr[p] : 0.0f;
        }
        __syncthreads();
        for (int i = threadIdx.x; i < TILE && start + i < length; i += THREADS) {
            float acc = b;
#pragma unroll
            for (int j = 0; j < KS; ++j) acc = fmaf(wk[j], s[i + j], acc);
            out[row * length + start + i] = acc;
        }
    }
}

template <int KS>
static void launch_ks(const float* x, const float* w, const float* b, float* out, int64_t rows,
                      int64_t channels, int64_t length, cudaStream_t st) {
    const int64_t tiles_per_row = (length + TILE - 1) / TILE;
    int64_t blocks = rows * tiles_per_row;
    if (blocks > 1 << 20) blocks = 1 << 20;  // grid-stride beyond
    dwconv_tiles<KS><<<(unsigned)blocks, THREADS, 0, st>>>(x, w, b, out, rows, channels, length, tiles_per_row);
}

extern "C" int launch(const float* x,       // [batch, channels, length]
                      const float* weight,  // [channels, 1, kernel_size]
                      const float* bias,    // [channels]
                      int64_t batch, int64_t channels, int64_t length, int64_t kernel_size,
                      float* out,            // [batch, channels, length] output
                      void* stream) {
    const int64_t rows = batch * channels;
    if (rows <= 0 || length <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    switch (kernel_size) {
        case 1: launch_ks<1>(x, weight, bias, out, rows, channels, length, st); break;
        case 3: launch_ks<3>(x, weight, bias, out, rows, channels, length, st); break;
        case 5: launch_ks<5>(x, weight, bias, out, rows, channels, length, st); break;
        case 7: launch_ks<7>(x, weight, bias, out, rows, channels, length, st); break;
        default: return 1;  // outside the contract (odd 1..7)
    }
    return cudaGetLastError() != cudaSuccess;
}
