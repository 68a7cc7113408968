// y = gelu_tanh(x + bias) + residual, bfloat16 in and out, float32 math, one fused pass.
//
// PyTorch eager runs this as ~7 kernels (casts, add, gelu, add, cast) with float32
// intermediates in DRAM; here each element is read once (x, residual) and written once (y).
// x, residual and y are contiguous, so the kernel walks them as flat arrays of rows * cols
// elements: each thread moves 8 consecutive bf16 values (one 16-byte load / store) regardless of
// where rows end; only the bias index depends on the row layout (flat index mod cols), and the
// small bias vector stays in cache. The last n % 8 elements are handled one by one.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

__device__ __forceinline__ float gelu_tanh(float h) {
    const float k0 = 0.7978845608028654f;  // sqrt(2 / pi)
    const float k1 = 0.044715f;
    return 0.5f * h * (1.0f + tanhf(k0 * (h + k1 * h * h * h)));
}

__device__ __forceinline__ __nv_bfloat16 fused(__nv_bfloat16 x, __nv_bfloat16 b, __nv_bfloat16 r) {
    const float h = __bfloat162float(x) + __bfloat162float(b);
    return __float2bfloat16_rn(gelu_tanh(h) + __bfloat162float(r));  // one rounding, like the reference
}

constexpr int VEC = 8;  // bf16 per 16-byte vector

// VECTORIZED: pointers are 16-byte aligned; each thread handles VEC consecutive elements.
template <bool VECTORIZED>
__global__ void bias_gelu_residual(const __nv_bfloat16* __restrict__ x,
                                   const __nv_bfloat16* __restrict__ bias,
                                   const __nv_bfloat16* __restrict__ res,
                                   __nv_bfloat16* __restrict__ y, int64_t n, int64_t cols) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (VECTORIZED) {
        const int64_t nvec = n / VEC;
        for (int64_t v = t; v < nvec; v += stride) {
            const int64_t i0 = v * VEC;
            uint4 xv = reinterpret_cast<const uint4*>(x)[v];
            const uint4 rv = reinterpret_cast<const uint4*>(res)[v];
            // Elements go in and out of the 16-byte words by memcpy (registers, no memory):
            // writing them through a pointer of another type is punning C++ leaves undefined.
            __nv_bfloat16 xe[VEC], re[VEC], oe[VEC];
            memcpy(xe, &xv, sizeof xv);
            memcpy(re, &rv, sizeof rv);
            int64_t col = i0 % cols;  // one division per 8 elements; then step with wrap-around
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                oe[e] = fused(xe[e], bias[col], re[e]);
                if (++col == cols) col = 0;
            }
            uint4 out;
            memcpy(&out, oe, sizeof out);
            reinterpret_cast<uint4*>(y)[v] = out;
        }
        // Tail that does not fill a vector (fewer than VEC elements).
        const int64_t i = nvec * VEC + t;
        if (i < n) y[i] = fused(x[i], bias[i % cols], res[i]);
    } else {
        for (int64_t i = t; i < n; i += stride) y[i] = fused(x[i], bias[i % cols], res[i]);
    }
}

extern "C" int launch(const __nv_bfloat16* x,         // [rows, cols]
                      const __nv_bfloat16* bias,      // [cols]
                      const __nv_bfloat16* residual,  // [rows, cols]
                      int64_t rows, int64_t cols,
                      __nv_bfloat16* y,               // [rows, cols] output
                      void* stream) {
    const int64_t n = rows * cols;
    if (n <= 0) return 0;
    const int threads = 256;
    const bool aligned = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(residual) |
                           reinterpret_cast<uintptr_t>(y)) % 16) == 0;
    const int64_t work = aligned ? (n + VEC - 1) / VEC : n;
    int64_t blocks = (work + threads - 1) / threads;
    if (blocks > (1 << 20)) blocks = 1 << 20;  // grid-stride loop covers the rest
    cudaStream_t st = (cudaStream_t)stream;
    if (aligned)
        bias_gelu_residual<true><<<(unsigned)blocks, threads, 0, st>>>(x, bias, residual, y, n, cols);
    else
        bias_gelu_residual<false><<<(unsigned)blocks, threads, 0, st>>>(x, bias, residual, y, n, cols);
    return cudaGetLastError() != cudaSuccess;
}
