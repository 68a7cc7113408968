// Permute (0, 2, 1, 3): float16 [batch, seq, heads, dim] -> contiguous [batch, heads, seq, dim].
// See README.md for the argument layout.
//
// Correct but slow: one 2-byte element per thread in 64-thread blocks, each thread splitting its
// output index into (b, h, s, d) with 64-bit divisions and modulos.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>

__global__ void permute_naive(const __half* x, __half* out, int64_t total, int64_t seq,
                              int64_t heads, int64_t dim) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;   // output index
    if (i >= total) return;
    const int64_t d = i % dim;
    const int64_t s = (i / dim) % seq;
    const int64_t h = (i / (dim * seq)) % heads;
    const int64_t b = i / (dim * seq * heads);
    out[i] = x[((b * seq + s) * heads + h) * dim + d];
}

extern "C" int launch(const __half* x,   // [batch, seq, heads, dim]
                      int64_t batch, int64_t seq, int64_t heads, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    if (batch <= 0 || seq <= 0 || heads <= 0 || dim <= 0) return 0;
    const int threads = 64;
    const int64_t total = batch * seq * heads * dim;
    // total <= 2^28 elements: at most 4M blocks, well inside gridDim.x.
    permute_naive<<<(unsigned)((total + threads - 1) / threads), threads, 0, (hipStream_t)stream>>>(
        x, out, total, seq, heads, dim);
    return hipGetLastError() != hipSuccess;
}
