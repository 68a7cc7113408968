// Causal varlen prefill attention with grouped-query heads, bfloat16 in and out, float32 scores,
// online softmax and accumulators (flash-attention's tiling on CUDA cores, no tensor cores).
//
// One block of 256 threads per (32 query rows, sequence, query head); a block past its sequence's
// end returns at once. The block keeps its query tile in shared memory and walks the keys up to its
// last row in tiles of 32: it stages the K and V tiles (bfloat16) in shared memory, each thread
// scores 4 (row, key) pairs (causal mask applied), one thread per row folds the tile into the row's
// running max and denominator (online softmax), and each thread updates D/8 of the accumulators of
// its row with the probabilities and V. Shared memory and __syncthreads only (no warp shuffles):
// 32- and 64-wide wavefronts alike. Rows of shared tiles are padded by one 32-bit word (no bank conflicts).
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

#define BM 32          // query rows per block
#define BN 32          // keys per tile
#define THREADS 256    // 8 threads per query row

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static size_t smem_bytes(int64_t D) {
    const size_t row = (size_t)D + 2;                    // bfloat16 elements per padded row
    return (BM + 2 * BN) * row * sizeof(uint16_t)        // Q, K, V tiles
           + (size_t)BM * (BN + 1) * sizeof(float) + 3 * BM * sizeof(float);
}

template <int MAXJ>    // accumulators per thread: D / 8 <= MAXJ
__global__ void __launch_bounds__(THREADS) prefill(const uint16_t* __restrict__ q, const uint16_t* __restrict__ k,
                                                   const uint16_t* __restrict__ v, const int32_t* __restrict__ cu,
                                                   float scale, int64_t Hq, int64_t Hkv, int64_t D,
                                                   uint16_t* __restrict__ out) {
    extern __shared__ float smem[];
    const int64_t row = D + 2;
    uint16_t* qs = (uint16_t*)smem;                      // [BM][row]
    uint16_t* ks = qs + BM * row;                        // [BN][row]
    uint16_t* vs = ks + BN * row;                        // [BN][row]
    float* ss = (float*)(vs + BN * row);                 // [BM][BN + 1] scores, then probabilities
    float* m_run = ss + BM * (BN + 1);                   // [BM] running max
    float* l_run = m_run + BM;                           // [BM] running denominator
    float* corr = l_run + BM;                            // [BM] this tile's rescale factor

    const int tid = threadIdx.x;
    const int64_t b = blockIdx.y, h = blockIdx.z;
    const int64_t start = cu[b], seq = cu[b + 1] - start;
    const int64_t m0 = (int64_t)(gridDim.x - 1 - blockIdx.x) * BM;      // heavy (late) row blocks first
    if (m0 >= seq) return;
    const int64_t hk = h / (Hq / Hkv);

    for (int64_t i = tid; i < BM * D; i += THREADS) {
        const int64_t r = i / D, d = i % D;
        qs[r * row + d] = m0 + r < seq ? q[((start + m0 + r) * Hq + h) * D + d] : 0;
    }
    if (tid < BM) { m_run[tid] = -INFINITY; l_run[tid] = 0.0f; }
    const int r_own = tid / 8, lane = tid % 8;           // this thread's row, and its dims lane + 8 j
    float acc[MAXJ];
#pragma unroll
    for (int j = 0; j < MAXJ; ++j) acc[j] = 0.0f;

    const int64_t hi = seq < m0 + BM ? seq : m0 + BM;    // keys past the block's last row are masked
    for (int64_t n0 = 0; n0 < hi; n0 += BN) {
        __syncthreads();                                 // the previous tile is no longer read
        for (int64_t i = tid; i < BN * D; i += THREADS) {
            const int64_t c = i / D, d = i % D;
            const bool ok = n0 + c < seq;
            const int64_t at = ((start + n0 + c) * Hkv + hk) * D + d;
            ks[c * row + d] = ok ? k[at] : 0;
            vs[c * row + d] = ok ? v[at] : 0;
        }
        __syncthreads();
        // Scores: thread (r_own, lane) computes keys lane, lane + 8, lane + 16, lane + 24 of its row.
        {
            float dot[BN / 8] = {0.0f, 0.0f, 0.0f, 0.0f};
            const uint32_t* qw = (const uint32_t*)(qs + r_own * row);
            for (int64_t w = 0; w < D / 2; ++w) {
                const uint32_t qq = qw[w];
                const float q0 = __uint_as_float(qq << 16), q1 = __uint_as_float(qq & 0xffff0000u);
#pragma unroll
                for (int j = 0; j < BN / 8; ++j) {
                    const uint32_t kk = ((const uint32_t*)(ks + (lane + 8 * j) * row))[w];
                    dot[j] += q0 * __uint_as_float(kk << 16) + q1 * __uint_as_float(kk & 0xffff0000u);
                }
            }
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) {
                const int64_t key = n0 + lane + 8 * j;
                ss[r_own * (BN + 1) + lane + 8 * j] = key <= m0 + r_own && key < seq ? dot[j] * scale : -INFINITY;
            }
        }
        __syncthreads();
        // Online softmax: one thread per row. Key 0 (first tile) is visible to every row, so the
        // running max is finite from then on and exp(-inf - max) is 0 for masked keys.
        if (tid < BM) {
            float* s = ss + tid * (BN + 1);
            float mx = m_run[tid];
            for (int c = 0; c < BN; ++c) mx = fmaxf(mx, s[c]);
            const float f = expf(m_run[tid] - mx);       // first tile: exp(-inf) = 0
            float sum = 0.0f;
            for (int c = 0; c < BN; ++c) { const float p = expf(s[c] - mx); s[c] = p; sum += p; }
            l_run[tid] = l_run[tid] * f + sum;
            m_run[tid] = mx;
            corr[tid] = f;
        }
        __syncthreads();
        const float f = corr[r_own];
        const float* p = ss + r_own * (BN + 1);
#pragma unroll
        for (int j = 0; j < MAXJ; ++j) acc[j] *= f;
#pragma unroll 2
        for (int c = 0; c < BN; ++c) {
            const float pc = p[c];
            const uint16_t* vr = vs + c * row + lane;
#pragma unroll
            for (int j = 0; j < MAXJ; ++j)
                if (lane + 8 * j < D) acc[j] += pc * bf16_to_float(vr[8 * j]);
        }
    }
    if (m0 + r_own < seq) {
        const float inv = 1.0f / l_run[r_own];
        uint16_t* o = out + ((start + m0 + r_own) * Hq + h) * D;
#pragma unroll
        for (int j = 0; j < MAXJ; ++j) {
            const int64_t d = lane + 8 * j;
            if (d < D) o[d] = float_to_bf16(acc[j] * inv);
        }
    }
}

template <int MAXJ>
static int run(const uint16_t* q, const uint16_t* k, const uint16_t* v, const int32_t* cu, float scale, int64_t B,
               int64_t Hq, int64_t Hkv, int64_t D, int64_t max_seqlen, uint16_t* out, hipStream_t stream) {
    const size_t smem = smem_bytes(D);
    if (smem > 48 * 1024 &&
        hipFuncSetAttribute((const void*)prefill<MAXJ>, hipFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != hipSuccess)
        return 1;
    const dim3 grid((unsigned)((max_seqlen + BM - 1) / BM), (unsigned)B, (unsigned)Hq);
    prefill<MAXJ><<<grid, THREADS, smem, stream>>>(q, k, v, cu, scale, Hq, Hkv, D, out);
    return hipGetLastError() != hipSuccess;
}

extern "C" int launch(const uint16_t* q, const uint16_t* k, const uint16_t* v, const int32_t* cu_seqlens, float scale,
                      int64_t B, int64_t Hq, int64_t Hkv, int64_t D, int64_t max_seqlen, int64_t total, uint16_t* out,
                      void* stream) {
    if (B <= 0 || Hq <= 0 || total <= 0 || max_seqlen <= 0) return 0;
    if (D <= 0 || D > 256 || D % 2 != 0 || Hkv <= 0 || Hq % Hkv != 0) return 1;
    hipStream_t s = (hipStream_t)stream;
    if (D <= 64) return run<8>(q, k, v, cu_seqlens, scale, B, Hq, Hkv, D, max_seqlen, out, s);
    if (D <= 128) return run<16>(q, k, v, cu_seqlens, scale, B, Hq, Hkv, D, max_seqlen, out, s);
    return run<32>(q, k, v, cu_seqlens, scale, B, Hq, Hkv, D, max_seqlen, out, s);
}
