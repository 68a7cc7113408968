// Embedding lookup: out[t, :] = weight[indices[t], :], float16. See README.md.
//
// Correct but slow: one warp per token, copying the row one half (2 bytes) per thread per step.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

__global__ void gather_rows_naive(const __half* weight, const int64_t* indices, __half* out,
                                  int64_t dim) {
    const int64_t t = blockIdx.x;
    for (int64_t j = threadIdx.x; j < dim; j += blockDim.x)
        out[t * dim + j] = weight[indices[t] * dim + j];
}

extern "C" int launch(const __half* weight,    // [vocab, dim]
                      const int64_t* indices,  // [tokens]
                      int64_t tokens, int64_t dim,
                      __half* out,             // [tokens, dim] output
                      void* stream) {
    if (tokens <= 0 || dim <= 0) return 0;
    gather_rows_naive<<<(unsigned)tokens, 32, 0, (cudaStream_t)stream>>>(weight, indices, out, dim);
    return cudaGetLastError() != cudaSuccess;
}
