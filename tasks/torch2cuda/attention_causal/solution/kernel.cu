// Causal attention (prefill): out = softmax(mask(q k^T / sqrt(dim))) v per (sequence, head),
// float16 q, k, v and out, float32 scores, softmax and sums; dim = 64.
//
// Flash-style: the seq x seq score matrix is never materialised. One 256-thread block per
// (sequence, head, 64 query rows) walks the keys up to its last row in 32-key tiles staged in
// shared memory (as float32), keeping per row a running max, a running denominator and the
// 64-wide output accumulator, rescaled when the max grows (online softmax). Threads form a
// 16 x 16 grid: each computes 4 rows x 2 keys of a score tile and 4 rows x 4 dims of the output;
// the 16 threads that share rows reduce the row max and sum with xor shuffles over 16 lanes
// (inside one warp, or one wavefront, of any width >= 16). Tiles past a block's last row are
// skipped (half of the work for causal attention), and the blocks with the most tiles start first.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>

constexpr int DIM = 64;
constexpr int BLOCK_M = 64;   // query rows per block
constexpr int BLOCK_N = 32;   // keys per tile
constexpr int THREADS = 256;
constexpr int RM = 4;         // rows per thread
constexpr int SN = 2;         // score columns per thread
constexpr int OD = 4;         // output dims per thread
constexpr int LANES = 16;     // threads sharing rows: tx = 0..15
static_assert((BLOCK_M / RM) * LANES == THREADS && SN * LANES == BLOCK_N && OD * LANES == DIM, "tiling");

__device__ __forceinline__ float row_max(float v) {
#pragma unroll
    for (int off = LANES / 2; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

__device__ __forceinline__ float row_sum(float v) {
#pragma unroll
    for (int off = LANES / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;  // xor butterflies add the same pairs in every lane: the 16 lanes agree bit for bit
}

__global__ void __launch_bounds__(THREADS) attention_causal_flash(
        const __half* __restrict__ q, const __half* __restrict__ k, const __half* __restrict__ v,
        __half* __restrict__ out, int64_t seq, int64_t tiles_m, float scale) {
    __shared__ __align__(16) float Qs[DIM][BLOCK_M + 4];   // transposed; rows 16-byte aligned
    __shared__ float Ks[DIM][BLOCK_N + 1];                 // transposed; padded against bank conflicts
    __shared__ float Vs[BLOCK_N][DIM];
    __shared__ float Ps[BLOCK_M][BLOCK_N + 1];

    const int64_t bh = blockIdx.x / tiles_m;
    const int64_t m0 = (tiles_m - 1 - (int64_t)(blockIdx.x % tiles_m)) * BLOCK_M;  // heavy blocks first
    const int tid = threadIdx.x, tx = tid % LANES, ty = tid / LANES;
    const __half* qb = q + bh * seq * DIM;
    const __half* kb = k + bh * seq * DIM;
    const __half* vb = v + bh * seq * DIM;

    for (int i = tid; i < BLOCK_M * DIM; i += THREADS) {
        const int row = i / DIM, d = i % DIM;
        const int64_t r = m0 + row;
        Qs[d][row] = r < seq ? __half2float(qb[r * DIM + d]) * scale : 0.0f;
    }
    float run_max[RM], den[RM], acc[RM][OD];
#pragma unroll
    for (int i = 0; i < RM; ++i) {
        run_max[i] = -INFINITY;
        den[i] = 0.0f;
#pragma unroll
        for (int j = 0; j < OD; ++j) acc[i][j] = 0.0f;
    }

    const int64_t n_end = m0 + BLOCK_M < seq ? m0 + BLOCK_M : seq;  // keys past the last row are masked
    for (int64_t n0 = 0; n0 < n_end; n0 += BLOCK_N) {
        __syncthreads();  // the previous tile's Ks, Vs and Ps are consumed (and Qs is written)
        for (int i = tid; i < BLOCK_N * DIM; i += THREADS) {
            const int key = i / DIM, d = i % DIM;
            const int64_t s = n0 + key;
            const bool ok = s < seq;
            Ks[d][key] = ok ? __half2float(kb[s * DIM + d]) : 0.0f;
            Vs[key][d] = ok ? __half2float(vb[s * DIM + d]) : 0.0f;
        }
        __syncthreads();

        float score[RM][SN];
#pragma unroll
        for (int i = 0; i < RM; ++i)
#pragma unroll
            for (int j = 0; j < SN; ++j) score[i][j] = 0.0f;
#pragma unroll 8
        for (int d = 0; d < DIM; ++d) {
            const float4 qv = *reinterpret_cast<const float4*>(&Qs[d][ty * RM]);
            const float qr[RM] = {qv.x, qv.y, qv.z, qv.w};
#pragma unroll
            for (int j = 0; j < SN; ++j) {
                const float kv = Ks[d][tx + j * LANES];
#pragma unroll
                for (int i = 0; i < RM; ++i) score[i][j] = fmaf(qr[i], kv, score[i][j]);
            }
        }

#pragma unroll
        for (int i = 0; i < RM; ++i) {
            const int64_t row = m0 + ty * RM + i;
            float tile_max = -INFINITY;
#pragma unroll
            for (int j = 0; j < SN; ++j) {
                if (n0 + tx + j * LANES > row) score[i][j] = -INFINITY;  // causal (and past seq)
                tile_max = fmaxf(tile_max, score[i][j]);
            }
            // Key 0 is in the first tile and never masked, so new_max is finite from then on.
            const float new_max = fmaxf(run_max[i], row_max(tile_max));
            const float corr = expf(run_max[i] - new_max);  // exp(-inf) = 0 on the first tile
            float tile_sum = 0.0f;
#pragma unroll
            for (int j = 0; j < SN; ++j) {
                const float p = expf(score[i][j] - new_max);
                Ps[ty * RM + i][tx + j * LANES] = p;
                tile_sum += p;
            }
            den[i] = den[i] * corr + row_sum(tile_sum);
            run_max[i] = new_max;
#pragma unroll
            for (int j = 0; j < OD; ++j) acc[i][j] *= corr;
        }
        __syncthreads();

#pragma unroll 8
        for (int n = 0; n < BLOCK_N; ++n) {
            float vv[OD];
#pragma unroll
            for (int j = 0; j < OD; ++j) vv[j] = Vs[n][tx + j * LANES];
#pragma unroll
            for (int i = 0; i < RM; ++i) {
                const float p = Ps[ty * RM + i][n];
#pragma unroll
                for (int j = 0; j < OD; ++j) acc[i][j] = fmaf(p, vv[j], acc[i][j]);
            }
        }
    }

#pragma unroll
    for (int i = 0; i < RM; ++i) {
        const int64_t row = m0 + ty * RM + i;
        if (row >= seq) continue;
        const float inv = 1.0f / den[i];
#pragma unroll
        for (int j = 0; j < OD; ++j) out[bh * seq * DIM + row * DIM + tx + j * LANES] = __float2half_rn(acc[i][j] * inv);
    }
}

extern "C" int launch(const __half* q,   // [batch, heads, seq, dim]
                      const __half* k,   // [batch, heads, seq, dim]
                      const __half* v,   // [batch, heads, seq, dim]
                      int64_t batch, int64_t heads, int64_t seq, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    const int64_t bh = batch * heads;
    if (bh <= 0 || seq <= 0) return 0;
    if (dim != DIM) return 1;  // the contract: dim is 64
    const int64_t tiles_m = (seq + BLOCK_M - 1) / BLOCK_M;
    attention_causal_flash<<<(unsigned)(bh * tiles_m), THREADS, 0, (cudaStream_t)stream>>>(
        q, k, v, out, seq, tiles_m, 1.0f / sqrtf((float)dim));
    return cudaGetLastError() != cudaSuccess;
}
