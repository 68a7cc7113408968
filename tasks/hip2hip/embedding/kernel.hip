// Embedding lookup: out[t, :] = weight[indices[t], :], float16. See README.md.
//
// float16 values are moved as raw 16-bit patterns.
//
// Baseline: a straightforward first kernel, one 32-lane group per token (8 tokens per 256-thread
// block; a 64-wide wavefront carries two tokens). The group reads its token's id once and copies
// the row lane-strided, in 16-byte vectors (8 halves as a uint4) when dim is a multiple of 8 and
// the table and the output both start 16-byte aligned (then every row does), else half by half.
// Rows are read as the ids name them, so a repeated id reads its row again (from the caches).
// Correct for any shape, but not tuned: a whole row is one group's job, so a few hundred long rows
// (dim in the thousands) put only a few wavefronts on each compute unit, with few bytes in flight;
// a width that is not a multiple of 8 copies its whole row 2 bytes a lane instead of vectorising an
// aligned body; and on narrow rows part of the group idles (dim 77: three steps, the last mostly
// masked).
#include <hip/hip_runtime.h>
#include <stdint.h>

#define GROUP 32  // lanes per token
#define ROWS 8    // tokens per 256-thread block

// T is the unit moved: uint4 (8 halves) or uint16_t (one half). row_units = dim / (halves per T).
template <typename T>
__global__ void gather_rows(const T* __restrict__ weight, const int64_t* __restrict__ indices,
                            T* __restrict__ out, int64_t tokens, int64_t row_units) {
    const int64_t t = (int64_t)blockIdx.x * ROWS + threadIdx.x / GROUP;
    if (t >= tokens) return;  // the whole group leaves together
    const int lane = threadIdx.x % GROUP;
    const T* src = weight + indices[t] * row_units;
    T* dst = out + t * row_units;
    for (int64_t j = lane; j < row_units; j += GROUP) dst[j] = src[j];
}

extern "C" int launch(const uint16_t* weight,    // [vocab, dim]
                      const int64_t* indices,  // [tokens]
                      int64_t tokens, int64_t dim,
                      uint16_t* out,             // [tokens, dim] output
                      void* stream) {
    if (tokens <= 0 || dim <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    const int64_t blocks = (tokens + ROWS - 1) / ROWS;
    const bool vec = dim % 8 == 0 && (uintptr_t)weight % 16 == 0 && (uintptr_t)out % 16 == 0;
    if (vec)
        gather_rows<uint4><<<(unsigned)blocks, ROWS * GROUP, 0, st>>>(
            (const uint4*)weight, indices, (uint4*)out, tokens, dim / 8);
    else
        gather_rows<uint16_t><<<(unsigned)blocks, ROWS * GROUP, 0, st>>>(weight, indices, out, tokens, dim);
    return hipGetLastError() != hipSuccess;
}
