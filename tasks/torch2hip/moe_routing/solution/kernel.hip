// MoE router: softmax over experts, top-k, renormalised top-k weights and int64 expert ids.
//
// PyTorch runs softmax, topk, sum and divide as separate kernels. One kernel suffices: the
// softmax denominator cancels in the renormalised weights, w_r = exp(l_r - l_max) / sum over the
// chosen k of exp(l_j - l_max), so only the chosen logits need an exp. A group of G lanes
// (8, 16 or 32: each divides 32 and 64, so a group never straddles two wavefronts whatever
// warpSize is) owns one token; lane i holds experts i, i + G, ... in registers
// (SLOTS of them). k rounds of a group-wide arg-max (value, then the lower id, as torch.topk
// orders distinct values) pick the experts in descending order; the owning lane drops each pick.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

constexpr int MAX_K = 8;
constexpr int THREADS = 256;

template <int G, int SLOTS>
__global__ void __launch_bounds__(THREADS) moe_route(const float* __restrict__ logits, int64_t tokens,
                                                     int64_t experts, int k, float* __restrict__ weights,
                                                     int64_t* __restrict__ ids) {
    const int lane = threadIdx.x % G;
    const int64_t token = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    const bool valid = token < tokens;  // no early return: every lane must reach the shuffles
    float v[SLOTS];
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int64_t e = lane + (int64_t)s * G;
        v[s] = (valid && e < experts) ? logits[token * experts + e] : -INFINITY;
    }
    float top_val[MAX_K];
    int top_id[MAX_K];
#pragma unroll
    for (int r = 0; r < MAX_K; ++r) {
        if (r >= k) break;  // k is the same for every lane
        float best = -INFINITY;
        int best_id = 0x7fffffff;
#pragma unroll
        for (int s = 0; s < SLOTS; ++s) {
            const int e = lane + s * G;
            if (v[s] > best) { best = v[s]; best_id = e; }  // slots ascend in id: ties keep the lower
        }
#pragma unroll
        for (int off = G / 2; off > 0; off >>= 1) {
            const float ov = __shfl_xor(best, off, G);
            const int oi = __shfl_xor(best_id, off, G);
            if (ov > best || (ov == best && oi < best_id)) { best = ov; best_id = oi; }
        }
        top_val[r] = best;
        top_id[r] = best_id;
#pragma unroll
        for (int s = 0; s < SLOTS; ++s)
            if (lane + s * G == best_id) v[s] = -INFINITY;  // the owning lane drops the pick
    }
    if (!valid || lane != 0) return;
    const float max_logit = top_val[0];  // read before the loop below overwrites top_val[0]
    float sum = 0.0f;
#pragma unroll
    for (int r = 0; r < MAX_K; ++r) {
        if (r >= k) break;
        top_val[r] = expf(top_val[r] - max_logit);
        sum += top_val[r];
    }
    const float inv = 1.0f / sum;
#pragma unroll
    for (int r = 0; r < MAX_K; ++r) {
        if (r >= k) break;
        weights[token * k + r] = top_val[r] * inv;
        ids[token * k + r] = top_id[r];
    }
}

template <int G, int SLOTS>
static void launch_groups(const float* logits, int64_t tokens, int64_t experts, int k, float* weights,
                          int64_t* ids, hipStream_t st) {
    const int64_t tokens_per_block = THREADS / G;
    const int64_t blocks = (tokens + tokens_per_block - 1) / tokens_per_block;
    moe_route<G, SLOTS><<<(unsigned)blocks, THREADS, 0, st>>>(logits, tokens, experts, k, weights, ids);
}

extern "C" int launch(const float* logits,  // [tokens, experts]
                      int64_t tokens,
                      int64_t experts,
                      int64_t k,
                      float* weights,       // [tokens, k] output
                      int64_t* ids,         // [tokens, k] output
                      void* stream) {
    if (tokens <= 0) return 0;
    if (experts < 1 || experts > 128 || k < 1 || k > MAX_K || k > experts) return 1;  // outside the contract
    hipStream_t st = (hipStream_t)stream;
    const int kk = (int)k;
    if (experts <= 8)       launch_groups<8, 1>(logits, tokens, experts, kk, weights, ids, st);
    else if (experts <= 16) launch_groups<16, 1>(logits, tokens, experts, kk, weights, ids, st);
    else if (experts <= 32) launch_groups<32, 1>(logits, tokens, experts, kk, weights, ids, st);
    else if (experts <= 64) launch_groups<32, 2>(logits, tokens, experts, kk, weights, ids, st);
    else                    launch_groups<32, 4>(logits, tokens, experts, kk, weights, ids, st);
    return hipGetLastError() != hipSuccess;
}
