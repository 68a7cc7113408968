// Embedding lookup: out[t, :] = weight[indices[t], :], float16. See README.md.
//
// float16 values are moved as raw 16-bit patterns.
//
// Correct but slow: one 32-thread block per token, copying the row one half (2 bytes) per thread per step.
#include <hip/hip_runtime.h>
#include <stdint.h>

__global__ void gather_rows_naive(const uint16_t* weight, const int64_t* indices, uint16_t* out,
                                  int64_t dim) {
    const int64_t t = blockIdx.x;
    for (int64_t j = threadIdx.x; j < dim; j += blockDim.x)
        out[t * dim + j] = weight[indices[t] * dim + j];
}

extern "C" int launch(const uint16_t* weight,    // [vocab, dim]
                      const int64_t* indices,  // [tokens]
                      int64_t tokens, int64_t dim,
                      uint16_t* out,             // [tokens, dim] output
                      void* stream) {
    if (tokens <= 0 || dim <= 0) return 0;
    gather_rows_naive<<<(unsigned)tokens, 32, 0, (hipStream_t)stream>>>(weight, indices, out, dim);
    return hipGetLastError() != hipSuccess;
}
