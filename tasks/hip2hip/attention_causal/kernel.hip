// Causal attention (prefill): out = softmax(mask(q k^T / sqrt(dim))) v per (sequence, head),
// float16 q, k, v and out, float32 math; dim = 64. See README.md.
//
// Correct but slow: one 128-thread block per query row. The row's scores are materialised in
// shared memory (one thread per key, each reading a whole key row on its own: uncoalesced), then
// the block reduces the max and the sum through shared memory, and each thread sums one output
// dimension over all the row's keys. K and V are re-read from memory for every query row.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <math.h>
#include <stdint.h>

constexpr int THREADS = 128;

__device__ float block_reduce(float v, float* red, bool is_max) {
    red[threadIdx.x] = v;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if ((int)threadIdx.x < stride) {
            const float other = red[threadIdx.x + stride];
            red[threadIdx.x] = is_max ? fmaxf(red[threadIdx.x], other) : red[threadIdx.x] + other;
        }
        __syncthreads();
    }
    const float result = red[0];
    __syncthreads();  // everyone has read red[0] before it is reused
    return result;
}

__global__ void attention_causal_naive(const __half* q, const __half* k, const __half* v, __half* out,
                                       int64_t seq, int64_t dim, float scale) {
    extern __shared__ float scores[];  // [seq]
    __shared__ float red[THREADS];
    const int64_t bh = blockIdx.x / seq, row = blockIdx.x % seq;
    const __half* qr = q + (bh * seq + row) * dim;
    const __half* kb = k + bh * seq * dim;
    const __half* vb = v + bh * seq * dim;
    float local_max = -INFINITY;
    for (int64_t j = threadIdx.x; j <= row; j += THREADS) {  // keys 0..row: the causal mask
        float dot = 0.0f;
        for (int64_t d = 0; d < dim; ++d) dot += __half2float(qr[d]) * __half2float(kb[j * dim + d]);
        scores[j] = dot * scale;
        local_max = fmaxf(local_max, scores[j]);
    }
    const float row_max = block_reduce(local_max, red, true);
    float local_sum = 0.0f;
    for (int64_t j = threadIdx.x; j <= row; j += THREADS) {
        scores[j] = expf(scores[j] - row_max);
        local_sum += scores[j];
    }
    const float den = block_reduce(local_sum, red, false);  // its barriers also publish scores[]
    for (int64_t d = threadIdx.x; d < dim; d += THREADS) {
        float acc = 0.0f;
        for (int64_t j = 0; j <= row; ++j) acc += scores[j] * __half2float(vb[j * dim + d]);
        out[(bh * seq + row) * dim + d] = __float2half_rn(acc / den);
    }
}

extern "C" int launch(const __half* q,   // [batch, heads, seq, dim]
                      const __half* k,   // [batch, heads, seq, dim]
                      const __half* v,   // [batch, heads, seq, dim]
                      int64_t batch, int64_t heads, int64_t seq, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    const int64_t rows = batch * heads * seq;
    if (rows <= 0) return 0;
    const size_t smem = (size_t)seq * sizeof(float);  // seq <= 4096: 16 KB
    attention_causal_naive<<<(unsigned)rows, THREADS, smem, (hipStream_t)stream>>>(
        q, k, v, out, seq, dim, 1.0f / sqrtf((float)dim));
    return hipGetLastError() != hipSuccess;
}
