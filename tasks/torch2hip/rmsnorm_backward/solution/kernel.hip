// RMSNorm backward, bfloat16 in and out, float32 math:
//   dx = rstd * (g - xhat * mean(g * xhat)), g = dy * w, xhat = x * rstd;   dw = sum_rows dy * xhat.
//
// Two kernels. dx: one block per row, a shared-memory reduction of sum(g * xhat), then a second pass
// (hitting L1/L2) writes dx. dw: a block of 32 columns x 8 row lanes walks all rows (each warp reads
// 32 consecutive columns of a row), the 8 lanes' sums are added in shared memory. No warp shuffles:
// 32- and 64-wide warps alike.
#include <hip/hip_runtime.h>
#include <stdint.h>

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

// e4m3fn bits to float (exact): subnormals are code * 2^-9, 0x7f / 0xff are NaN.
__device__ __forceinline__ float e4m3fn_to_float(uint8_t b) {
    const uint32_t e = (b >> 3) & 15u, m = b & 7u;
    float v;
    if ((b & 0x7fu) == 0x7fu) v = __uint_as_float(0x7fc00000u);
    else if (e == 0) v = (float)m * 0.001953125f;
    else v = __uint_as_float(((e + 120u) << 23) | (m << 20));
    return (b & 0x80u) ? -v : v;
}

#define THREADS 256

__global__ void __launch_bounds__(THREADS) rmsnorm_bwd_dx(const uint16_t* __restrict__ dy, const uint16_t* __restrict__ x,
                                                          const uint16_t* __restrict__ w, const float* __restrict__ rstd,
                                                          int64_t cols, uint16_t* __restrict__ dx) {
    __shared__ float red[THREADS];
    const int64_t base = (int64_t)blockIdx.x * cols;
    const float rs = rstd[blockIdx.x];
    float acc = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS)
        acc += bf16_to_float(dy[base + j]) * bf16_to_float(w[j]) * bf16_to_float(x[base + j]) * rs;
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float mean = red[0] / (float)cols;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS) {
        const float g = bf16_to_float(dy[base + j]) * bf16_to_float(w[j]);
        const float xhat = bf16_to_float(x[base + j]) * rs;
        dx[base + j] = float_to_bf16(rs * (g - xhat * mean));
    }
}

__global__ void __launch_bounds__(THREADS) rmsnorm_bwd_dw(const uint16_t* __restrict__ dy, const uint16_t* __restrict__ x,
                                                          const float* __restrict__ rstd, int64_t rows, int64_t cols,
                                                          uint16_t* __restrict__ dw) {
    __shared__ float part[8][32];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    const int64_t c = (int64_t)blockIdx.x * 32 + tx;
    float acc = 0.0f;
    if (c < cols)
        for (int64_t r = ty; r < rows; r += 8)
            acc += bf16_to_float(dy[r * cols + c]) * bf16_to_float(x[r * cols + c]) * rstd[r];
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && c < cols) {
        float s = 0.0f;
        for (int i = 0; i < 8; ++i) s += part[i][tx];
        dw[c] = float_to_bf16(s);
    }
}

extern "C" int launch(const uint16_t* dy, const uint16_t* x, const uint16_t* w, const float* rstd,
                      int64_t rows, int64_t cols, uint16_t* dx, uint16_t* dw, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    rmsnorm_bwd_dx<<<(unsigned)rows, THREADS, 0, st>>>(dy, x, w, rstd, cols, dx);
    rmsnorm_bwd_dw<<<(unsigned)((cols + 31) / 32), THREADS, 0, st>>>(dy, x, rstd, rows, cols, dw);
    return hipGetLastError() != hipSuccess;
}
