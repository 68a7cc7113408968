// GEMM with a fused epilogue: C = relu(A @ B + bias), float16 A, B and C, float32 bias and
// accumulation. See README.md.
//
// Correct but slow: one thread per output element, each walking the whole of K with scalar
// 2-byte loads straight from global memory (no shared-memory tiling, no reuse between threads
// beyond what the caches catch, no tensor cores).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

constexpr int TILE = 16;  // 16 x 16 threads per block

__global__ void matmul_bias_relu_naive(const __half* a, const __half* b, const float* bias, __half* c,
                                       int64_t m, int64_t n, int64_t k, int64_t tiles_n) {
    const int64_t row = (int64_t)(blockIdx.x / tiles_n) * TILE + threadIdx.y;
    const int64_t col = (int64_t)(blockIdx.x % tiles_n) * TILE + threadIdx.x;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int64_t i = 0; i < k; ++i) acc += __half2float(a[row * k + i]) * __half2float(b[i * n + col]);
    c[row * n + col] = __float2half_rn(fmaxf(acc + bias[col], 0.0f));
}

extern "C" int launch(const __half* a,    // [m, k]
                      const __half* b,    // [k, n]
                      const float* bias,  // [n]
                      int64_t m, int64_t n, int64_t k,
                      __half* c,          // [m, n] output
                      void* stream) {
    if (m <= 0 || n <= 0) return 0;
    const int64_t tiles_m = (m + TILE - 1) / TILE, tiles_n = (n + TILE - 1) / TILE;
    matmul_bias_relu_naive<<<(unsigned)(tiles_m * tiles_n), dim3(TILE, TILE), 0, (cudaStream_t)stream>>>(
        a, b, bias, c, m, n, k, tiles_n);
    return cudaGetLastError() != cudaSuccess;
}
