// Softmax backward: dx = y * (dy - sum(y * dy)) per row, bfloat16 in and out, float32 math.
//
// One block per row (as wide as the row needs, 32 to 512 threads): a pass reduces the row's
// dot(y, dy) through shared memory (no warp shuffles: 32- and 64-wide warps alike), a second pass
// (hitting L1/L2) writes dx.
#include <cuda_runtime.h>
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

__global__ void softmax_bwd(const uint16_t* __restrict__ y, const uint16_t* __restrict__ dy, int64_t cols,
                            uint16_t* __restrict__ dx) {
    __shared__ float red[512];
    const int64_t base = (int64_t)blockIdx.x * cols;
    float acc = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        acc += bf16_to_float(y[base + j]) * bf16_to_float(dy[base + j]);
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float dot = red[0];
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        dx[base + j] = float_to_bf16(bf16_to_float(y[base + j]) * (bf16_to_float(dy[base + j]) - dot));
}

extern "C" int launch(const uint16_t* y, const uint16_t* dy, int64_t rows, int64_t cols, uint16_t* dx, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    int threads = 32;
    while (threads < 512 && threads < cols) threads *= 2;
    softmax_bwd<<<(unsigned)rows, threads, 0, (cudaStream_t)stream>>>(y, dy, cols, dx);
    return cudaGetLastError() != cudaSuccess;
}
