// Batched matrix multiply of small float32 matrices, C[b] = A[b] @ B[b]. See README.md.
//
// Correct but slow: one thread per output element computes its dot product straight from global
// memory (a row of A, a strided column of B), with no reuse through shared memory or registers.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void bmm_thread_per_output(const float* a, const float* b, float* c, int64_t total,
                                      int64_t m, int64_t n, int64_t k) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int64_t bat = t / (m * n), rem = t - bat * m * n, i = rem / n, j = rem - i * n;
    float acc = 0.0f;
    for (int64_t p = 0; p < k; ++p) acc += a[(bat * m + i) * k + p] * b[(bat * k + p) * n + j];
    c[t] = acc;
}

extern "C" int launch(const float* a,   // [batch, m, k]
                      const float* b,   // [batch, k, n]
                      int64_t batch, int64_t m, int64_t n, int64_t k,
                      float* c,         // [batch, m, n] output
                      void* stream) {
    const int64_t total = batch * m * n;
    if (total <= 0) return 0;
    const int threads = 128;
    bmm_thread_per_output<<<(unsigned)((total + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        a, b, c, total, m, n, k);
    return cudaGetLastError() != cudaSuccess;
}
