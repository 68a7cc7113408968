// Softmax backward: dx = y * (dy - sum(y * dy)) per row, bfloat16 in and out, float32 math.
//
// One block per row (as wide as the row needs, 32 to 512 threads): a pass reduces the row's
// dot(y, dy) through shared memory (no warp shuffles: 32- and 64-wide warps alike), a second pass
// (hitting L1/L2) writes dx.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}


__global__ void softmax_bwd(const uint16_t* __restrict__ y, const uint16_t* __restrict__ dy, int64_t cols,
                            uint16_t* __restrict__ dx) {
    __shared__ float red[512];
    const int64_t base = (int64_t)blockIdx.x * cols;
    float acc = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        acc += bf16_to_float(y[base + j]) * bf16_to_float(dy[base + j]);
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float dot = red[0];
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        dx[base + j] = float_to_bf16(bf16_to_float(y[base + j]) * (bf16_to_float(dy[base + j]) - dot));
}

extern "C" int launch(const uint16_t* y, const uint16_t* dy, int64_t rows, int64_t cols, uint16_t* dx, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    int threads = 32;
    while (threads < 512 && threads < cols) threads *= 2;
    softmax_bwd<<<(unsigned)rows, threads, 0, (cudaStream_t)stream>>>(y, dy, cols, dx);
    return cudaGetLastError() != cudaSuccess;
}
