// Paged-KV decode attention, bfloat16, float32 online softmax.
//
// One block per (sequence, query head), T threads (128, or 256 for D > 128). Tokens go in chunks of
// T: thread i scores token c + i (a full dot product over its K row, found through the block
// table) into shared memory; then each thread owns one output dimension d and folds the chunk into
// its running (max, sum, acc_d) with an online softmax, reading V rows coalesced across d. Shared
// memory and __syncthreads only (no warp shuffles): 32- and 64-wide warps alike.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__device__ __forceinline__ float bf16_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

__device__ __forceinline__ uint16_t float_to_bf16(float f) {   // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}


__global__ void paged_decode(const uint16_t* __restrict__ q, const uint16_t* __restrict__ kc, const uint16_t* __restrict__ vc,
                             const int32_t* __restrict__ tables, const int32_t* __restrict__ seq_lens, float scale,
                             int64_t Hq, int64_t Hkv, int64_t D, int64_t bs, int64_t max_blocks, uint16_t* __restrict__ out) {
    extern __shared__ float smem[];                 // q[D], then scores[T]
    float* qs = smem;
    float* sc = smem + D;
    const int T = blockDim.x, tid = threadIdx.x;
    const int64_t b = blockIdx.x / Hq, h = blockIdx.x % Hq, hk = h / (Hq / Hkv);
    const int64_t len = seq_lens[b];
    const int32_t* table = tables + b * max_blocks;
    for (int64_t d = tid; d < D; d += T) qs[d] = bf16_to_float(q[(b * Hq + h) * D + d]);
    __syncthreads();
    float m = -INFINITY, l = 0.0f, acc = 0.0f;
    for (int64_t c = 0; c < len; c += T) {
        const int64_t t = c + tid;
        float s = -INFINITY;
        if (t < len) {
            const uint16_t* kr = kc + (((int64_t)table[t / bs] * bs + t % bs) * Hkv + hk) * D;
            float dot = 0.0f;
            for (int64_t d = 0; d < D; ++d) dot += qs[d] * bf16_to_float(kr[d]);
            s = dot * scale;
        }
        sc[tid] = s;
        __syncthreads();
        const int64_t n = (len - c < T) ? len - c : T;
        float cm = m;
        for (int i = 0; i < n; ++i) cm = fmaxf(cm, sc[i]);
        const float factor = expf(m - cm);          // m = -inf on the first chunk: factor 0
        l *= factor;
        acc *= factor;
        for (int i = 0; i < n; ++i) {
            const float p = expf(sc[i] - cm);
            l += p;
            if (tid < D) {
                const int64_t tt = c + i;
                acc += p * bf16_to_float(vc[(((int64_t)table[tt / bs] * bs + tt % bs) * Hkv + hk) * D + tid]);
            }
        }
        m = cm;
        __syncthreads();
    }
    if (tid < D) out[(b * Hq + h) * D + tid] = float_to_bf16(acc / l);
}

extern "C" int launch(const uint16_t* q, const uint16_t* k_cache, const uint16_t* v_cache, const int32_t* block_tables,
                      const int32_t* seq_lens, float scale, int64_t B, int64_t Hq, int64_t Hkv, int64_t D,
                      int64_t block_size, int64_t max_blocks, uint16_t* out, void* stream) {
    if (B <= 0 || Hq <= 0 || D <= 0) return 0;
    if (D > 256 || Hkv <= 0 || Hq % Hkv != 0) return 1;
    const int threads = D > 128 ? 256 : 128;
    const size_t smem = (size_t)(D + threads) * sizeof(float);
    paged_decode<<<(unsigned)(B * Hq), threads, smem, (cudaStream_t)stream>>>(
        q, k_cache, v_cache, block_tables, seq_lens, scale, Hq, Hkv, D, block_size, max_blocks, out);
    return cudaGetLastError() != cudaSuccess;
}
