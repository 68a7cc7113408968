// Rotary position embedding (rotate-half layout), float16 x, float32 cos/sin. See README.md.
//
// Correct but slow: one 32-thread block per (token, head) row, one rotation pair (two halves,
// 2 bytes each) per thread per step, with scalar loads and a cos/sin re-read for every head.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>

__global__ void rope_naive(const __half* x, const float* cos_t, const float* sin_t, __half* out,
                           int64_t heads, int64_t dim) {
    const int64_t row = blockIdx.x;  // row = token * heads + head
    const int64_t half = dim / 2, token = row / heads;
    for (int64_t i = threadIdx.x; i < half; i += blockDim.x) {
        const float a = __half2float(x[row * dim + i]);
        const float b = __half2float(x[row * dim + half + i]);
        const float c = cos_t[token * half + i], s = sin_t[token * half + i];
        out[row * dim + i] = __float2half(a * c - b * s);
        out[row * dim + half + i] = __float2half(b * c + a * s);
    }
}

extern "C" int launch(const __half* x,    // [tokens, heads, dim]
                      const float* cos,   // [tokens, dim / 2]
                      const float* sin,   // [tokens, dim / 2]
                      int64_t tokens, int64_t heads, int64_t dim,
                      __half* out,        // [tokens, heads, dim] output
                      void* stream) {
    if (tokens <= 0 || heads <= 0 || dim < 2) return 0;
    rope_naive<<<(unsigned)(tokens * heads), 32, 0, (hipStream_t)stream>>>(x, cos, sin, out, heads, dim);
    return hipGetLastError() != hipSuccess;
}
