// Linear + bias + activation epilogue, bfloat16: out = act(x @ w.T + b), act 0 = GELU (tanh), 1 = SiLU.
//
// A 64 x 64 output tile per 256-thread block, K in steps of 16 staged in shared memory as float32,
// each thread a 4 x 4 register tile, float32 FMAs (no tensor cores: portable to HIP as is).
#define BM 64
#define BN 64
#define BK 16
// The epilogue rounds x @ w.T + b to bfloat16 first, as PyTorch's GEMM does, then applies the
// activation in float32 and rounds again.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}


__global__ void __launch_bounds__(256) gemm_bias_act(const uint16_t* __restrict__ x, const uint16_t* __restrict__ w,
                                                     const uint16_t* __restrict__ b, int64_t M, int64_t N, int64_t K,
                                                     int64_t act, uint16_t* __restrict__ out) {
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN + 4];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += 256) {
            const int r = i / BK, kk = i % BK;
            const int64_t gk = k0 + kk;
            As[kk][r] = (m0 + r < M && gk < K) ? bf16_to_float(x[(m0 + r) * K + gk]) : 0.0f;
            Bs[kk][r] = (n0 + r < N && gk < K) ? bf16_to_float(w[(n0 + r) * K + gk]) : 0.0f;
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
    for (int i = 0; i < 4; ++i) {
        const int64_t r = m0 + ty * 4 + i;
        if (r >= M) continue;
        for (int j = 0; j < 4; ++j) {
            const int64_t c = n0 + tx * 4 + j;
            if (c >= N) continue;
            const float y = bf16_to_float(float_to_bf16(acc[i][j] + bf16_to_float(b[c])));
            float v;
            if (act == 0) v = 0.5f * y * (1.0f + tanhf(0.7978845608028654f * (y + 0.044715f * y * y * y)));
            else v = y / (1.0f + expf(-y));
            out[r * N + c] = float_to_bf16(v);
        }
    }
}

extern "C" int launch(const uint16_t* x, const uint16_t* w, const uint16_t* b, int64_t m, int64_t n, int64_t k,
                      int64_t act, uint16_t* out, void* stream) {
    if (m <= 0 || n <= 0) return 0;
    const dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    gemm_bias_act<<<grid, 256, 0, (cudaStream_t)stream>>>(x, w, b, m, n, k, act, out);
    return cudaGetLastError() != cudaSuccess;
}
