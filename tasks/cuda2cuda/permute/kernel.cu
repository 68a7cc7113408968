// Permute (0, 2, 1, 3): out[b, h, s, :] = x[b, s, h, :], float16.
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel: each (b, s, h) row of `dim` elements is contiguous in both x
// and out, so a warp copies one row with coalesced loads and stores. A 256-thread block is 8
// warps on 8 consecutive seq positions of one (batch, head); the grid is (seq tiles, heads,
// batch), so no index needs a division. An even `dim` is copied as half2 pairs (4 bytes a
// thread), an odd one element by element.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define ROWS_PER_BLOCK 8   // warps per block, one (b, s, h) row each

template <typename T>
__global__ void permute_rows(const T* x, T* out, int64_t batch, int64_t seq, int64_t heads, int64_t width) {
    const int64_t s = (int64_t)blockIdx.x * ROWS_PER_BLOCK + threadIdx.y;
    if (s >= seq) return;
    for (int64_t b = blockIdx.z; b < batch; b += gridDim.z)
        for (int64_t h = blockIdx.y; h < heads; h += gridDim.y) {
            const T* src = x + ((b * seq + s) * heads + h) * width;
            T* dst = out + ((b * heads + h) * seq + s) * width;
            for (int64_t d = threadIdx.x; d < width; d += 32) dst[d] = src[d];
        }
}

extern "C" int launch(const __half* x,   // [batch, seq, heads, dim]
                      int64_t batch, int64_t seq, int64_t heads, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    if (batch <= 0 || seq <= 0 || heads <= 0 || dim <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int64_t tiles = (seq + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;   // seq <= 2^31 * 8
    const dim3 grid((unsigned)tiles, (unsigned)(heads < 65535 ? heads : 65535),
                    (unsigned)(batch < 65535 ? batch : 65535));
    const dim3 block(32, ROWS_PER_BLOCK);
    const bool pairs = dim % 2 == 0 && (uintptr_t)x % 4 == 0 && (uintptr_t)out % 4 == 0;
    if (pairs)
        permute_rows<__half2><<<grid, block, 0, st>>>((const __half2*)x, (__half2*)out, batch, seq, heads, dim / 2);
    else
        permute_rows<__half><<<grid, block, 0, st>>>(x, out, batch, seq, heads, dim);
    return cudaGetLastError() != cudaSuccess;
}
