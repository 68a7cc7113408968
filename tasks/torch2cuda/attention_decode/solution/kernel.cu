// Attention for one decoding step: out = softmax(q k^T / sqrt(dim)) v per (sequence, head), float16
// q, k, v and out, float32 scores, softmax and sums.
//
// Eager PyTorch upcasts the whole KV cache to float32 (a read and a twice-as-large write of K
// and of V), then reads both again in two batched products; here K and V are read once, as
// float16, in a single pass with an online softmax. One 512-thread block per (sequence, head):
// 16 groups of 32 lanes, each group taking 4 keys at a time (their K and V rows loaded together,
// so 64 rows of each are in flight per block). In a group, lane l holds elements l, l + 32, ...
// of the row (each load instruction reads 64 contiguous bytes of a row), the 4 partial dot
// products are summed across the 32 lanes with xor shuffles, and the group keeps a running max,
// denominator and weighted sum of V rows (rescaled when the max grows). The 16 groups' partial
// results are merged through shared memory at the end. Any seq >= 1 works.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>

constexpr int GROUP = 32;    // lanes per dot-product reduction: a CUDA warp
constexpr int GROUPS = 16;
constexpr int THREADS = GROUP * GROUPS;
constexpr int KEYS = 4;      // keys per group step

__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
    for (int off = GROUP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;  // xor butterflies add the same pairs in every lane: all 32 lanes hold the same sum
}

template <int DIM>
__global__ void __launch_bounds__(THREADS) attention_decode_kernel(
        const __half* __restrict__ q, const __half* __restrict__ k, const __half* __restrict__ v,
        __half* __restrict__ out, int64_t seq, float scale) {
    constexpr int E = DIM / GROUP;  // row elements per lane
    __shared__ float group_max[GROUPS], group_den[GROUPS];
    __shared__ float group_acc[GROUPS][DIM];
    const int64_t bh = blockIdx.x;
    const int lane = threadIdx.x % GROUP, g = threadIdx.x / GROUP;
    const __half* kb = k + bh * seq * DIM;
    const __half* vb = v + bh * seq * DIM;

    float qf[E], acc[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        qf[e] = __half2float(q[bh * DIM + lane + e * GROUP]) * scale;
        acc[e] = 0.0f;
    }
    float run_max = -INFINITY, den = 0.0f;
    for (int64_t s0 = (int64_t)g * KEYS; s0 < seq; s0 += (int64_t)GROUPS * KEYS) {
        float score[KEYS], vals[KEYS][E];
#pragma unroll
        for (int u = 0; u < KEYS; ++u) {
            const int64_t s = s0 + u;
            float dot = 0.0f;
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const bool ok = s < seq;  // the same in all lanes of a group
                dot += ok ? qf[e] * __half2float(kb[s * DIM + lane + e * GROUP]) : 0.0f;
                vals[u][e] = ok ? __half2float(vb[s * DIM + lane + e * GROUP]) : 0.0f;
            }
            score[u] = dot;
        }
        float step_max = run_max;
#pragma unroll
        for (int u = 0; u < KEYS; ++u) {
            score[u] = group_sum(score[u]);  // every lane calls the shuffles
            if (s0 + u < seq) step_max = fmaxf(step_max, score[u]);
        }
        // s0 < seq: key s0 is real, so step_max is finite; exp(-inf) = 0 on the first step.
        const float corr = expf(run_max - step_max);
        den *= corr;
#pragma unroll
        for (int e = 0; e < E; ++e) acc[e] *= corr;
#pragma unroll
        for (int u = 0; u < KEYS; ++u) {
            const float p = (s0 + u < seq) ? expf(score[u] - step_max) : 0.0f;
            den += p;
#pragma unroll
            for (int e = 0; e < E; ++e) acc[e] = fmaf(p, vals[u][e], acc[e]);
        }
        run_max = step_max;
    }
    if (lane == 0) {
        group_max[g] = run_max;  // -inf for a group that got no key (seq < 4 * g + 1)
        group_den[g] = den;
    }
#pragma unroll
    for (int e = 0; e < E; ++e) group_acc[g][lane + e * GROUP] = acc[e];
    __syncthreads();
    if (threadIdx.x < DIM) {
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < GROUPS; ++i) m = fmaxf(m, group_max[i]);  // finite: group 0 has key 0
        float total_den = 0.0f, total = 0.0f;
#pragma unroll
        for (int i = 0; i < GROUPS; ++i) {
            if (group_max[i] == -INFINITY) continue;
            const float w = expf(group_max[i] - m);
            total_den += group_den[i] * w;
            total += group_acc[i][threadIdx.x] * w;
        }
        out[bh * DIM + threadIdx.x] = __float2half_rn(total / total_den);
    }
}

extern "C" int launch(const __half* q,   // [batch, heads, dim]
                      const __half* k,   // [batch, heads, seq, dim]
                      const __half* v,   // [batch, heads, seq, dim]
                      int64_t batch, int64_t heads, int64_t seq, int64_t dim,
                      __half* out,       // [batch, heads, dim] output
                      void* stream) {
    const int64_t bh = batch * heads;
    if (bh <= 0) return 0;
    if (seq <= 0) return 1;  // softmax over no keys is undefined
    cudaStream_t st = (cudaStream_t)stream;
    const float scale = 1.0f / sqrtf((float)dim);
    if (dim == 64)       attention_decode_kernel<64><<<(unsigned)bh, THREADS, 0, st>>>(q, k, v, out, seq, scale);
    else if (dim == 128) attention_decode_kernel<128><<<(unsigned)bh, THREADS, 0, st>>>(q, k, v, out, seq, scale);
    else return 1;       // the contract: dim is 64 or 128
    return cudaGetLastError() != cudaSuccess;
}
