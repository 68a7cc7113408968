// Fused RMSNorm + per-token FP8 (e4m3fn) quantisation:
//   y = x * rsqrt(mean(x^2) + eps) * w (float32); scale[r] = max(max|y|, 1e-12) / 448; q = e4m3fn(y / scale).
//
// One block per row, three passes over the row (sum of squares; absmax of y; q), the second and
// third hitting L1/L2, so x leaves memory once. Reductions go through shared memory (no warp shuffles), so the same code is right for 32- and
// 64-wide warps. Divisions are IEEE (__fdiv_rn); the e4m3fn bits are computed by hand.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}


// A finite float with |v| <= 448 to e4m3fn bits, round to nearest, ties to even (as PyTorch's
// conversion). Below 2^-6 the values are subnormal, steps of 2^-9: v * 512 rounded is the code
// itself. Above, the float's own exponent and its top 3 mantissa bits, rounded on the 20 bits below.
__device__ __forceinline__ uint8_t to_e4m3fn(float v) {
    const uint32_t bits = __float_as_uint(v);
    const uint32_t sign = (bits >> 24) & 0x80u;
    const uint32_t mag = bits & 0x7fffffffu;
    uint32_t code;
    if (mag < 0x3c800000u) {                       // |v| < 2^-6
        const float y = __uint_as_float(mag) * 512.0f;   // exact
        float r = floorf(y);
        const float f = y - r;
        if (f > 0.5f || (f == 0.5f && fmodf(r, 2.0f) == 1.0f)) r += 1.0f;
        code = (uint32_t)r;
    } else {
        int e = (int)(mag >> 23) - 127;            // -6 .. 8
        uint32_t keep = (mag >> 20) & 7u;
        const uint32_t rest = mag & 0xfffffu;
        if (rest > 0x80000u || (rest == 0x80000u && (keep & 1u))) {
            if (++keep == 8u) { keep = 0u; ++e; }
        }
        code = ((uint32_t)(e + 7) << 3) | keep;
    }
    return (uint8_t)(sign | code);
}


#define THREADS 256

__device__ float block_reduce(float v, float* red, bool is_max) {
    red[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = is_max ? fmaxf(red[threadIdx.x], red[threadIdx.x + s])
                                                       : red[threadIdx.x] + red[threadIdx.x + s];
        __syncthreads();
    }
    const float out = red[0];
    __syncthreads();
    return out;
}

__global__ void __launch_bounds__(THREADS) rmsnorm_quant(const uint16_t* __restrict__ x, const uint16_t* __restrict__ w,
                                                         int64_t cols, float eps, uint8_t* __restrict__ q,
                                                         float* __restrict__ scale) {
    __shared__ float red[THREADS];
    const int64_t r = blockIdx.x;
    const uint16_t* xr = x + r * cols;
    float ss = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) {
        const float v = bf16_to_float(xr[j]);
        ss += v * v;
    }
    const float rstd = 1.0f / sqrtf(block_reduce(ss, red, false) / (float)cols + eps);
    float amax = 0.0f;   // the row's later passes hit L1/L2: x leaves memory once
    for (int64_t j = threadIdx.x; j < cols; j += THREADS)
        amax = fmaxf(amax, fabsf(bf16_to_float(xr[j]) * rstd * bf16_to_float(w[j])));
    const float s = __fdiv_rn(fmaxf(block_reduce(amax, red, true), 1e-12f), 448.0f);
    if (threadIdx.x == 0) scale[r] = s;
    uint8_t* qr = q + r * cols;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) {
        const float y = bf16_to_float(xr[j]) * rstd * bf16_to_float(w[j]);
        qr[j] = to_e4m3fn(fminf(fmaxf(__fdiv_rn(y, s), -448.0f), 448.0f));
    }
}

extern "C" int launch(const uint16_t* x, const uint16_t* w, int64_t rows, int64_t cols, float eps,
                      uint8_t* q, float* scale, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    rmsnorm_quant<<<(unsigned)rows, THREADS, 0, (hipStream_t)stream>>>(x, w, cols, eps, q, scale);
    return hipGetLastError() != hipSuccess;
}
