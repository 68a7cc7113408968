// Top-k (k <= 16) along each row of a float32 [rows, cols] tensor: sorted values and int64
// indices, ties to the lower column. See README.md.
//
// Correct but slow: one thread per row runs an insertion sort of the row into a k-slot list in
// local memory. Neighbouring threads read addresses a row apart (no coalescing), and a few long
// rows leave almost all the GPU idle.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void topk_thread_per_row(const float* x, int64_t rows, int64_t cols, int64_t k,
                                    float* out_v, int64_t* out_i) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float bv[16];
    int64_t bi[16];
    int64_t n = 0;  // filled slots, sorted by decreasing value
    for (int64_t j = 0; j < cols; ++j) {
        const float v = xr[j];
        if (n == k && !(v > bv[k - 1])) continue;  // not better than the k-th (ties keep the earlier)
        int64_t p = n < k ? n++ : k - 1;
        while (p > 0 && bv[p - 1] < v) { bv[p] = bv[p - 1]; bi[p] = bi[p - 1]; --p; }
        bv[p] = v; bi[p] = j;
    }
    for (int64_t p = 0; p < k; ++p) { out_v[r * k + p] = bv[p]; out_i[r * k + p] = bi[p]; }
}

extern "C" int launch(const float* x,     // [rows, cols]
                      int64_t rows, int64_t cols, int64_t k,
                      float* values,      // [rows, k] output
                      int64_t* indices,   // [rows, k] output
                      void* stream) {
    if (rows <= 0 || k <= 0) return 0;
    if (k > 16 || k > cols) return 1;  // outside the contract
    const int threads = 128;
    topk_thread_per_row<<<(unsigned)((rows + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        x, rows, cols, k, values, indices);
    return cudaGetLastError() != cudaSuccess;
}
