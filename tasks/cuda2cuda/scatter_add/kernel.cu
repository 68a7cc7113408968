// Scatter-add of rows: out = x.index_add(0, index, src), float32.
// See README.md for the semantics and the argument layout.
//
// A straightforward first kernel: out = x by a device-to-device copy, then one thread per src
// element adds it into its output row with atomicAdd. A block covers a tile of src rows by up to
// 256 columns (threadIdx.x walks the columns, so a warp's loads and atomics are contiguous;
// threadIdx.y picks the src row), so no index needs a division.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void scatter_add_rows(const int64_t* index, const float* src, float* out, int64_t n, int64_t dim) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;   // src row
    if (i >= n) return;
    const float* s = src + i * dim;
    float* o = out + index[i] * dim;
    for (int64_t d = threadIdx.x; d < dim; d += blockDim.x) atomicAdd(&o[d], s[d]);
}

extern "C" int launch(const float* x,        // [rows, dim]
                      const int64_t* index,  // [n]
                      const float* src,      // [n, dim]
                      int64_t rows, int64_t n, int64_t dim,
                      float* out,            // [rows, dim] output
                      void* stream) {
    if (rows <= 0 || dim <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    if (cudaMemcpyAsync(out, x, (size_t)(rows * dim) * sizeof(float), cudaMemcpyDeviceToDevice, st) != cudaSuccess)
        return 1;
    if (n > 0) {  // after the copy on the same stream, so the adds see it
        // Columns per block: the row width rounded up to a warp, at most 256; the rest of the
        // 256 threads take further src rows.
        int tx = 32;
        while (tx < dim && tx < 256) tx *= 2;
        const int ty = 256 / tx;
        const int64_t blocks = (n + ty - 1) / ty;
        scatter_add_rows<<<(unsigned)blocks, dim3(tx, ty), 0, st>>>(index, src, out, n, dim);
    }
    return cudaGetLastError() != cudaSuccess;
}
