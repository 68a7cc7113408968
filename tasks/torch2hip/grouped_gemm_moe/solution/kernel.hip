// Grouped GEMM for mixture-of-experts, bfloat16: out[s:t] = x[s:t] @ w[e].T per expert e.
//
// One launch for all experts, no host read of the offsets: grid.y covers ceil(T / 64) + E row
// tiles (an upper bound on the sum over experts of ceil(rows_e / 64)); a block walks the offsets to
// find which expert's tile it is (or exits). Each block: a 64 x 64 output tile, K in steps of 16
// staged in shared memory as float32, a 4 x 4 register tile per thread, float32 FMAs (no tensor
// cores: portable to HIP as is).
#include <hip/hip_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}


#define BM 64
#define BN 64
#define BK 16

__global__ void __launch_bounds__(256) grouped_gemm(const uint16_t* __restrict__ x, const uint16_t* __restrict__ w,
                                                    const int64_t* __restrict__ offsets, int64_t E, int64_t N,
                                                    int64_t K, uint16_t* __restrict__ out) {
    int64_t tile = blockIdx.y, e = 0;
    for (; e < E; ++e) {
        const int64_t tiles = (offsets[e + 1] - offsets[e] + BM - 1) / BM;
        if (tile < tiles) break;
        tile -= tiles;
    }
    if (e == E) return;                            // the block is past the last tile (uniform: no sync yet)
    const int64_t m0 = offsets[e] + tile * BM, m_end = offsets[e + 1];
    const uint16_t* we = w + e * N * K;
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN + 4];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int64_t n0 = (int64_t)blockIdx.x * BN;
    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += 256) {
            const int r = i / BK, kk = i % BK;
            const int64_t gk = k0 + kk;
            As[kk][r] = (m0 + r < m_end && gk < K) ? bf16_to_float(x[(m0 + r) * K + gk]) : 0.0f;
            Bs[kk][r] = (n0 + r < N && gk < K) ? bf16_to_float(we[(n0 + r) * K + gk]) : 0.0f;
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
        if (r >= m_end) continue;
        for (int j = 0; j < 4; ++j) {
            const int64_t c = n0 + tx * 4 + j;
            if (c < N) out[r * N + c] = float_to_bf16(acc[i][j]);
        }
    }
}

extern "C" int launch(const uint16_t* x, const uint16_t* w, const int64_t* offsets, int64_t T, int64_t E,
                      int64_t n, int64_t k, uint16_t* out, void* stream) {
    if (T <= 0 || n <= 0) return 0;
    const dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((T + BM - 1) / BM + E));
    grouped_gemm<<<grid, 256, 0, (hipStream_t)stream>>>(x, w, offsets, E, n, k, out);
    return hipGetLastError() != hipSuccess;
}
