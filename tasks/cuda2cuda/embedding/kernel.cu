// Embedding lookup: out[t, :] = weight[indices[t], :], float16. See README.md.
//
// Baseline: a straightforward first kernel, one warp per token (8 tokens per 256-thread block).
// The warp reads its token's id once and copies the row lane-strided, in 16-byte vectors (8 halves
// as a uint4) when dim is a multiple of 8 and the table and the output both start 16-byte aligned
// (then every row does), else half by half. Rows are read as the ids name them, so a repeated id
// reads its row again (from the caches).
// Correct for any shape, but not tuned: a whole row is one warp's job, so a few hundred long rows
// (dim in the thousands) put only a few warps on each SM, with few bytes in flight; a width that is
// not a multiple of 8 copies its whole row 2 bytes a lane instead of vectorising an aligned body;
// and on narrow rows part of the warp idles (dim 77: three steps, the last mostly masked).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define WARPS 8   // tokens (warps) per 256-thread block

// T is the unit moved: uint4 (8 halves) or __half. row_units = dim / (halves per T).
template <typename T>
__global__ void gather_rows(const T* __restrict__ weight, const int64_t* __restrict__ indices,
                            T* __restrict__ out, int64_t tokens, int64_t row_units) {
    const int64_t t = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (t >= tokens) return;  // the whole warp leaves together
    const int lane = threadIdx.x % 32;
    const T* src = weight + indices[t] * row_units;
    T* dst = out + t * row_units;
    for (int64_t j = lane; j < row_units; j += 32) dst[j] = src[j];
}

extern "C" int launch(const __half* weight,    // [vocab, dim]
                      const int64_t* indices,  // [tokens]
                      int64_t tokens, int64_t dim,
                      __half* out,             // [tokens, dim] output
                      void* stream) {
    if (tokens <= 0 || dim <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int64_t blocks = (tokens + WARPS - 1) / WARPS;
    const bool vec = dim % 8 == 0 && (uintptr_t)weight % 16 == 0 && (uintptr_t)out % 16 == 0;
    if (vec)
        gather_rows<uint4><<<(unsigned)blocks, WARPS * 32, 0, st>>>(
            (const uint4*)weight, indices, (uint4*)out, tokens, dim / 8);
    else
        gather_rows<__half><<<(unsigned)blocks, WARPS * 32, 0, st>>>(weight, indices, out, tokens, dim);
    return cudaGetLastError() != cudaSuccess;
}
