// Embedding lookup: out[t, :] = weight[indices[t], :], float16.
//
// A pure copy, bound by memory: what matters is wide, coalesced accesses and enough of them in
// flight. Each block copies a few rows; a row is moved in 16-byte vectors (8 halves) when dim is a
// multiple of 8 and both pointers are 16-byte aligned (then every row is), else half by half.
// The id of a row is read once per thread group, not once per element.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

// T is the unit moved (uint4 = 8 halves, or __half). blockDim = (lanes, rows per block).
template <typename T>
__global__ void gather_rows(const T* __restrict__ weight, const int64_t* __restrict__ indices,
                            T* __restrict__ out, int64_t tokens, int64_t row_units) {
    const int64_t t = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
    if (t >= tokens) return;
    const T* src = weight + indices[t] * row_units;
    T* dst = out + t * row_units;
    for (int64_t j = threadIdx.x; j < row_units; j += blockDim.x) dst[j] = src[j];
}

template <typename T>
static void launch_gather(const void* weight, const int64_t* indices, void* out, int64_t tokens,
                          int64_t row_units, cudaStream_t st) {
    // Lanes per row: the row width rounded up to a warp, at most 256; the rest of a 256-thread
    // block takes further rows so short rows still fill the block.
    int lanes = 32;
    while (lanes < 256 && lanes < row_units) lanes *= 2;
    const int rows_per_block = 256 / lanes;
    const int64_t blocks = (tokens + rows_per_block - 1) / rows_per_block;
    gather_rows<T><<<(unsigned)blocks, dim3(lanes, rows_per_block), 0, st>>>(
        (const T*)weight, indices, (T*)out, tokens, row_units);
}

extern "C" int launch(const __half* weight,    // [vocab, dim]
                      const int64_t* indices,  // [tokens]
                      int64_t tokens, int64_t dim,
                      __half* out,             // [tokens, dim] output
                      void* stream) {
    if (tokens <= 0 || dim <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const bool aligned = dim % 8 == 0 && ((uintptr_t)weight % 16 == 0) && ((uintptr_t)out % 16 == 0);
    if (aligned) launch_gather<uint4>(weight, indices, out, tokens, dim / 8, st);
    else         launch_gather<__half>(weight, indices, out, tokens, dim, st);
    return cudaGetLastError() != cudaSuccess;
}
