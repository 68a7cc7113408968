// Inclusive prefix sum along each row of a float32 [rows, cols] tensor. See README.md.
//
// A straightforward first kernel: one 256-thread block per row walks the row in 256-column
// chunks; each chunk is scanned in shared memory (Hillis-Steele, 8 steps) and offset by the
// running total of the chunks before it. float32 throughout.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 256

__global__ void cumsum_block_per_row(const float* x, int64_t cols, float* y) {
    __shared__ float buf[THREADS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float carry = 0.0f;
    for (int64_t base = 0; base < cols; base += THREADS) {
        const int64_t j = base + threadIdx.x;
        buf[threadIdx.x] = j < cols ? xr[j] : 0.0f;
        __syncthreads();
        for (int s = 1; s < THREADS; s <<= 1) {
            const float add = threadIdx.x >= s ? buf[threadIdx.x - s] : 0.0f;
            __syncthreads();
            buf[threadIdx.x] += add;
            __syncthreads();
        }
        if (j < cols) yr[j] = carry + buf[threadIdx.x];
        carry += buf[THREADS - 1];
        __syncthreads();
    }
}

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      float* y,         // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cumsum_block_per_row<<<(unsigned)rows, THREADS, 0, (cudaStream_t)stream>>>(x, cols, y);
    return cudaGetLastError() != cudaSuccess;
}
