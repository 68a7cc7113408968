// Scaled SwiGLU: out[r, j] = silu(x[r, j]) * x[r, hidden + j] * scale, float16. See README.md.
//
// A straightforward first kernel: a 2-D grid, blockIdx.y walks rows (in a loop past 65535) and
// blockIdx.x covers a row's columns, one output per thread in 256-thread blocks, float32 math.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>
#include <math.h>

__global__ void silu_mul_kernel(const __half* x, __half* out, int64_t rows, int64_t hidden, float scale) {
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= hidden) return;
    for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const float g = __half2float(x[r * 2 * hidden + j]);
        const float u = __half2float(x[r * 2 * hidden + hidden + j]);
        out[r * hidden + j] = __float2half_rn(g / (1.0f + expf(-g)) * u * scale);
    }
}

extern "C" int launch(const __half* x,  // [rows, 2 * hidden]
                      int64_t rows,
                      int64_t hidden,
                      float scale,
                      __half* out,      // [rows, hidden] output
                      void* stream) {
    if (rows <= 0 || hidden <= 0) return 0;
    const int threads = 256;
    const dim3 grid((unsigned)((hidden + threads - 1) / threads), (unsigned)(rows < 65535 ? rows : 65535));
    silu_mul_kernel<<<grid, threads, 0, (hipStream_t)stream>>>(x, out, rows, hidden, scale);
    return hipGetLastError() != hipSuccess;
}
