// Symmetric int8 quantization with one float32 scale per row:
//   scale[r] = max(absmax(x[r, :]), 1e-8) / 127;  q[r, c] = clamp(rint(x[r, c] / scale[r]), -127, 127).
//
// One block per row: a pass for the row's absmax (reduced in shared memory, no warp shuffles, so
// the same code is right for 32- and 64-wide warps), then a pass that writes q; the second read
// of the row hits L1/L2. Divisions are IEEE (__fdiv_rn) and rintf rounds half to even, as
// torch.round does, so the result matches the reference bit for bit. The block is as wide as the
// row needs (32 to 256 threads), so narrow rows do not idle most of a block.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>

__global__ void quantize_rows(const __half* __restrict__ x, int8_t* __restrict__ q,
                              float* __restrict__ scale, int64_t cols) {
    __shared__ float red[256];
    const int64_t r = blockIdx.x;
    const __half* xr = x + r * cols;
    float m = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, fabsf(__half2float(xr[j])));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + stride]);
        __syncthreads();
    }
    const float s = __fdiv_rn(fmaxf(red[0], 1e-8f), 127.0f);
    if (threadIdx.x == 0) scale[r] = s;
    int8_t* qr = q + r * cols;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        const float v = rintf(__fdiv_rn(__half2float(xr[j]), s));
        qr[j] = (int8_t)fminf(fmaxf(v, -127.0f), 127.0f);
    }
}

extern "C" int launch(const __half* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      int8_t* q,         // [rows, cols] output
                      float* scale,      // [rows] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    int threads = 32;
    while (threads < 256 && threads < cols) threads *= 2;
    quantize_rows<<<(unsigned)rows, threads, 0, (hipStream_t)stream>>>(x, q, scale, cols);
    return hipGetLastError() != hipSuccess;
}
