// y = gelu_tanh(x + bias) + residual, bfloat16 in and out, float32 math, one fused pass.
//
// PyTorch eager runs this as ~7 kernels (casts, add, gelu, add, cast) with float32
// intermediates in DRAM; here each element is read once (x, residual) and written once (y).
// x, residual and y are contiguous, so the kernel walks them as flat arrays of rows * cols
// elements: each thread moves 8 consecutive bf16 values (one 16-byte load / store) regardless of
// where rows end; only the bias index depends on the row layout (flat index mod cols), and the
// small bias vector stays in cache. The last n % 8 elements are handled one by one.
// bfloat16 values are handled as raw 16-bit patterns, converted with explicit bit operations
// so the code does not depend on the HIP version's bfloat16 header.
#include <hip/hip_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) {
    return __uint_as_float((uint32_t)b << 16);  // bf16 is the top half of a float32
}

// Round to nearest, ties to even (what torch's .to(torch.bfloat16) does); NaN stays NaN.
__device__ __forceinline__ uint16_t float_to_bf16(float f) {
    uint32_t u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

__device__ __forceinline__ float gelu_tanh(float h) {
    const float k0 = 0.7978845608028654f;  // sqrt(2 / pi)
    const float k1 = 0.044715f;
    return 0.5f * h * (1.0f + tanhf(k0 * (h + k1 * h * h * h)));
}

__device__ __forceinline__ uint16_t fused(uint16_t x, uint16_t b, uint16_t r) {
    const float h = bf16_to_float(x) + bf16_to_float(b);
    return float_to_bf16(gelu_tanh(h) + bf16_to_float(r));  // one rounding, like the reference
}

constexpr int VEC = 8;  // bf16 per 16-byte vector
struct alignas(16) Vec8 { uint16_t v[VEC]; };

// VECTORIZED: pointers are 16-byte aligned; each thread handles VEC consecutive elements.
template <bool VECTORIZED>
__global__ void bias_gelu_residual(const uint16_t* __restrict__ x, const uint16_t* __restrict__ bias,
                                   const uint16_t* __restrict__ res, uint16_t* __restrict__ y,
                                   int64_t n, int64_t cols) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (VECTORIZED) {
        const int64_t nvec = n / VEC;
        for (int64_t v = t; v < nvec; v += stride) {
            const Vec8 xv = reinterpret_cast<const Vec8*>(x)[v];
            const Vec8 rv = reinterpret_cast<const Vec8*>(res)[v];
            Vec8 out;
            int64_t col = (v * VEC) % cols;  // one division per 8 elements; then step with wrap-around
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                out.v[e] = fused(xv.v[e], bias[col], rv.v[e]);
                if (++col == cols) col = 0;
            }
            reinterpret_cast<Vec8*>(y)[v] = out;
        }
        // Tail that does not fill a vector (fewer than VEC elements).
        const int64_t i = nvec * VEC + t;
        if (i < n) y[i] = fused(x[i], bias[i % cols], res[i]);
    } else {
        for (int64_t i = t; i < n; i += stride) y[i] = fused(x[i], bias[i % cols], res[i]);
    }
}

extern "C" int launch(const uint16_t* x,         // [rows, cols] bfloat16
                      const uint16_t* bias,      // [cols] bfloat16
                      const uint16_t* residual,  // [rows, cols] bfloat16
                      int64_t rows, int64_t cols,
                      uint16_t* y,               // [rows, cols] bfloat16 output
                      void* stream) {
    const int64_t n = rows * cols;
    if (n <= 0) return 0;
    const int threads = 256;
    const bool aligned = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(residual) |
                           reinterpret_cast<uintptr_t>(y)) % 16) == 0;
    const int64_t work = aligned ? (n + VEC - 1) / VEC : n;
    int64_t blocks = (work + threads - 1) / threads;
    if (blocks > (1 << 20)) blocks = 1 << 20;  // grid-stride loop covers the rest
    hipStream_t st = (hipStream_t)stream;
    if (aligned)
        bias_gelu_residual<true><<<(unsigned)blocks, threads, 0, st>>>(x, bias, residual, y, n, cols);
    else
        bias_gelu_residual<false><<<(unsigned)blocks, threads, 0, st>>>(x, bias, residual, y, n, cols);
    return hipGetLastError() != hipSuccess;
}
