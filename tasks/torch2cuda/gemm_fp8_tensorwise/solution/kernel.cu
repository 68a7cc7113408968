// FP8 (e4m3fn) GEMM, per-tensor scales: out = (a @ b.T) * scale_a * scale_b, bfloat16.
//
// A 64 x 64 output tile per 256-thread block, K in steps of 16 staged in shared memory as float32,
// each thread a 4 x 4 register tile, float32 FMAs (no tensor cores or FP8 instructions: portable to
// HIP as is; the FP8 values are decoded by hand, exactly). The product is rounded to
// bfloat16 before the scales, as the reference's bfloat16 GEMM does.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
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

#define BM 64
#define BN 64
#define BK 16

__global__ void __launch_bounds__(256) gemm_kernel(const uint8_t* __restrict__ a, const uint8_t* __restrict__ b, const float* __restrict__ scale_a,
                                                   const float* __restrict__ scale_b, int64_t M, int64_t N, int64_t K,
                                                   uint16_t* __restrict__ out) {
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN + 4];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += 256) {
            const int r = i / BK, kk = i % BK;
            const int64_t gk = k0 + kk, gm = m0 + r, gn = n0 + r;
            As[kk][r] = (gm < M && gk < K) ? e4m3fn_to_float(a[gm * K + gk]) : 0.0f;
            Bs[kk][r] = (gn < N && gk < K) ? e4m3fn_to_float(b[gn * K + gk]) : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[4], bb[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) { a[i] = As[kk][ty * 4 + i]; bb[i] = Bs[kk][tx * 4 + i]; }
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * bb[j];
        }
        __syncthreads();
    }
    const float out_scale = scale_a[0] * scale_b[0];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = bf16_to_float(float_to_bf16(acc[i][j]));
    for (int i = 0; i < 4; ++i) {
        const int64_t r = m0 + ty * 4 + i;
        if (r >= M) continue;
        for (int j = 0; j < 4; ++j) {
            const int64_t c = n0 + tx * 4 + j;
            if (c < N) out[r * N + c] = float_to_bf16(acc[i][j] * out_scale);
        }
    }
}

extern "C" int launch(const uint8_t* a, const uint8_t* b, const float* scale_a, const float* scale_b,
                      int64_t m, int64_t n, int64_t k, uint16_t* out, void* stream) {
    if (m <= 0 || n <= 0) return 0;
    const dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    gemm_kernel<<<grid, 256, 0, (cudaStream_t)stream>>>(a, b, scale_a, scale_b, m, n, k, out);
    return cudaGetLastError() != cudaSuccess;
}
