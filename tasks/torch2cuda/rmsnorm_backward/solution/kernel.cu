// RMSNorm backward, bfloat16 in and out, float32 math:
//   dx = rstd * (g - xhat * mean(g * xhat)), g = dy * w, xhat = x * rstd;   dw = sum_rows dy * xhat.
//
// Two kernels. dx: one block per row, a shared-memory reduction of sum(g * xhat), then a second pass
// (hitting L1/L2) writes dx. dw: a block of 32 columns x 8 row lanes walks all rows (each warp reads
// 32 consecutive columns of a row), the 8 lanes' sums are added in shared memory. No warp shuffles:
// 32- and 64-wide warps alike.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}


#define THREADS 256

__global__ void __launch_bounds__(THREADS) rmsnorm_bwd_dx(const uint16_t* __restrict__ dy, const uint16_t* __restrict__ x,
                                                          const uint16_t* __restrict__ w, const float* __restrict__ rstd,
                                                          int64_t cols, uint16_t* __restrict__ dx) {
    __shared__ float red[THREADS];
    const int64_t base = (int64_t)blockIdx.x * cols;
    const float rs = rstd[blockIdx.x];
    float acc = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS)
        acc += bf16_to_float(dy[base + j]) * bf16_to_float(w[j]) * bf16_to_float(x[base + j]) * rs;
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float mean = red[0] / (float)cols;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) {
        const float g = bf16_to_float(dy[base + j]) * bf16_to_float(w[j]);
        const float xhat = bf16_to_float(x[base + j]) * rs;
        dx[base + j] = float_to_bf16(rs * (g - xhat * mean));
    }
}

__global__ void __launch_bounds__(THREADS) rmsnorm_bwd_dw(const uint16_t* __restrict__ dy, const uint16_t* __restrict__ x,
                                                          const float* __restrict__ rstd, int64_t rows, int64_t cols,
                                                          uint16_t* __restrict__ dw) {
    __shared__ float part[8][32];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    const int64_t c = (int64_t)blockIdx.x * 32 + tx;
    float acc = 0.0f;
    if (c < cols)
        for (int64_t r = ty; r < rows; r += 8)
            acc += bf16_to_float(dy[r * cols + c]) * bf16_to_float(x[r * cols + c]) * rstd[r];
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && c < cols) {
        float s = 0.0f;
        for (int i = 0; i < 8; ++i) s += part[i][tx];
        dw[c] = float_to_bf16(s);
    }
}

extern "C" int launch(const uint16_t* dy, const uint16_t* x, const uint16_t* w, const float* rstd,
                      int64_t rows, int64_t cols, uint16_t* dx, uint16_t* dw, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    rmsnorm_bwd_dx<<<(unsigned)rows, THREADS, 0, st>>>(dy, x, w, rstd, cols, dx);
    rmsnorm_bwd_dw<<<(unsigned)((cols + 31) / 32), THREADS, 0, st>>>(dy, x, rstd, rows, cols, dw);
    return cudaGetLastError() != cudaSuccess;
}
