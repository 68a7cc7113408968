// Rotary embedding (GPT-NeoX rotate-half) of q and k, and the rotated k and v written into a paged
// KV cache at slot_mapping, bfloat16, float32 math.
//
// One block per token. Its threads walk the token's (head, bf16 pair) items of q, then of k: each
// loads a pair of x1 (first half) and the matching pair of x2 (second half), the cos and sin pairs of
// the token's position, and writes both rotated pairs (q to q_out, k straight into its cache slot).
// Then v's row is copied into the same slot. 32-bit loads and stores (D % 4 == 0), coalesced across
// threads; a padding token (slot -1) rotates its q only.
#include <hip/hip_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float2 unpack(uint32_t w) {          // two bfloat16 -> two floats
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

__device__ __forceinline__ uint32_t float_to_bf16(float f) {    // round to nearest even (finite inputs)
    const uint32_t u = __float_as_uint(f);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

__device__ __forceinline__ uint32_t pack(float lo, float hi) { return float_to_bf16(lo) | (float_to_bf16(hi) << 16); }

__global__ void rotary_kv_write(const uint32_t* __restrict__ q, const uint32_t* __restrict__ k,
                                const uint32_t* __restrict__ v, const uint32_t* __restrict__ cos_sin,
                                const int64_t* __restrict__ positions, const int64_t* __restrict__ slots,
                                int64_t Hq, int64_t Hkv, int64_t D, uint32_t* __restrict__ q_out,
                                uint32_t* __restrict__ k_cache, uint32_t* __restrict__ v_cache) {
    const int64_t t = blockIdx.x;
    const int64_t slot = slots[t];
    const int64_t row = D / 2, half = D / 4;                     // 32-bit words per row and per half
    const uint32_t* cs = cos_sin + positions[t] * row;           // cos words [0, half), sin [half, row)
    const int64_t nq = Hq * half, nk = slot >= 0 ? Hkv * half : 0;
    for (int64_t i = threadIdx.x; i < nq + nk; i += blockDim.x) {
        const bool is_q = i < nq;
        const int64_t j = is_q ? i : i - nq, h = j / half, e = j % half;
        const uint32_t* x = is_q ? q + (t * Hq + h) * row : k + (t * Hkv + h) * row;
        uint32_t* o = is_q ? q_out + (t * Hq + h) * row : k_cache + (slot * Hkv + h) * row;
        const float2 x1 = unpack(x[e]), x2 = unpack(x[e + half]), c = unpack(cs[e]), s = unpack(cs[e + half]);
        o[e] = pack(x1.x * c.x - x2.x * s.x, x1.y * c.y - x2.y * s.y);
        o[e + half] = pack(x2.x * c.x + x1.x * s.x, x2.y * c.y + x1.y * s.y);
    }
    if (slot >= 0)
        for (int64_t i = threadIdx.x; i < Hkv * row; i += blockDim.x) v_cache[slot * Hkv * row + i] = v[t * Hkv * row + i];
}

extern "C" int launch(const uint16_t* q, const uint16_t* k, const uint16_t* v, const uint16_t* cos_sin,
                      const int64_t* positions, const int64_t* slot_mapping, int64_t tokens, int64_t Hq, int64_t Hkv,
                      int64_t D, int64_t block_size, int64_t num_blocks, uint16_t* q_out, uint16_t* k_cache,
                      uint16_t* v_cache, void* stream) {
    if (tokens <= 0) return 0;
    if (D % 4 != 0 || Hq <= 0 || Hkv <= 0) return 1;
    rotary_kv_write<<<(unsigned)tokens, 128, 0, (hipStream_t)stream>>>(
        (const uint32_t*)q, (const uint32_t*)k, (const uint32_t*)v, (const uint32_t*)cos_sin, positions, slot_mapping,
        Hq, Hkv, D, (uint32_t*)q_out, (uint32_t*)k_cache, (uint32_t*)v_cache);
    return hipGetLastError() != hipSuccess;
}
