// GroupNorm: for each (batch b, group g), the (channels / groups) * hw contiguous elements are
// normalised by their mean and biased variance, then y = x_hat * weight[c] + bias[c], float32.
// See README.md for the semantics and the argument layout.
//
// Correct but slow: one block of 128 threads per (batch, group), whatever its size (a single
// block on one huge group); three passes over the group (mean, variance, output), each reduced by
// a shared-memory tree with a barrier per step, and a division per element for the channel.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 128

__device__ float tree_sum(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    v = buf[0];
    __syncthreads();
    return v;
}

__global__ void groupnorm_naive(const float* x, const float* w, const float* b, int64_t hw,
                                int64_t groups, int64_t group_channels, float eps, float* y) {
    __shared__ float buf[THREADS];
    const int64_t n = group_channels * hw;                  // elements of one (batch, group)
    const float* xr = x + (int64_t)blockIdx.x * n;          // row blockIdx.x = b * groups + g
    float* yr = y + (int64_t)blockIdx.x * n;
    const int64_t ch0 = ((int64_t)blockIdx.x % groups) * group_channels;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += THREADS) s += xr[j];
    const float mean = tree_sum(s, buf) / (float)n;
    float v = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += THREADS) v += (xr[j] - mean) * (xr[j] - mean);
    const float var = tree_sum(v, buf) / (float)n;
    for (int64_t j = threadIdx.x; j < n; j += THREADS) {
        const int64_t c = ch0 + j / hw;
        yr[j] = (xr[j] - mean) / sqrtf(var + eps) * w[c] + b[c];
    }
}

extern "C" int launch(const float* x,       // [batch, channels, hw]
                      const float* weight,  // [channels]
                      const float* bias,    // [channels]
                      int64_t batch, int64_t channels, int64_t hw, int64_t groups,
                      float eps,
                      float* y,             // [batch, channels, hw] output
                      void* stream) {
    if (batch <= 0 || channels <= 0 || hw <= 0 || groups <= 0) return 0;
    // batch * groups (at most 256 * 4096) fits gridDim.x.
    groupnorm_naive<<<(unsigned)(batch * groups), THREADS, 0, (cudaStream_t)stream>>>(
        x, weight, bias, hw, groups, channels / groups, eps, y);
    return cudaGetLastError() != cudaSuccess;
}
