// Scatter-add of rows: out = x; out[index[i], :] += src[i, :], float32.
//
// Two kernels on the caller's stream (so the second sees the first's writes): a vectorised copy of
// x into out, then one thread group per src row adding it into its output row with atomicAdd.
// Atomics make repeated indices safe without sorting; with dim large, consecutive lanes hit
// consecutive addresses, so the atomics coalesce in L2. PyTorch's index_add also needs the clone
// first, so the traffic is the same, but here both steps are single light kernels.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void copy_vec4(const float4* __restrict__ x, float4* __restrict__ out, int64_t n4) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = x[i];
}

__global__ void copy_tail(const float* __restrict__ x, float* __restrict__ out, int64_t begin, int64_t total) {
    const int64_t i = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) out[i] = x[i];
}

// blockDim = (lanes, src rows per block).
__global__ void scatter_rows(const int64_t* __restrict__ index, const float* __restrict__ src,
                             float* __restrict__ out, int64_t n, int64_t dim) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
    if (i >= n) return;
    const float* s = src + i * dim;
    float* o = out + index[i] * dim;
    for (int64_t j = threadIdx.x; j < dim; j += blockDim.x) atomicAdd(o + j, s[j]);
}

extern "C" int launch(const float* x,        // [rows, dim]
                      const int64_t* index,  // [n]
                      const float* src,      // [n, dim]
                      int64_t rows, int64_t n, int64_t dim,
                      float* out,            // [rows, dim] output
                      void* stream) {
    if (rows <= 0 || dim <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int64_t total = rows * dim;
    // The storage of both tensors starts 16-byte aligned, so the flat copy can use float4.
    const int64_t n4 = total / 4;
    if (n4 > 0) {
        int64_t blocks = (n4 + 255) / 256;
        if (blocks > 65536) blocks = 65536;
        copy_vec4<<<(unsigned)blocks, 256, 0, st>>>((const float4*)x, (float4*)out, n4);
    }
    if (total > n4 * 4) copy_tail<<<1, 4, 0, st>>>(x, out, n4 * 4, total);
    if (n > 0) {
        int lanes = 32;
        while (lanes < 256 && lanes < dim) lanes *= 2;
        const int rows_per_block = 256 / lanes;
        const int64_t blocks = (n + rows_per_block - 1) / rows_per_block;
        scatter_rows<<<(unsigned)blocks, dim3(lanes, rows_per_block), 0, st>>>(index, src, out, n, dim);
    }
    return cudaGetLastError() != cudaSuccess;
}
