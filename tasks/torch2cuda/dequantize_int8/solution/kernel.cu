// Dequantize int8 with a float32 scale per row: out[r, c] = half(float(q[r, c]) * scale[r]).
//
// Bound by memory (1 byte in, 2 out per element). A thread group walks one row, loading its scale
// once; when cols % 4 == 0 every row starts 4-byte aligned in q and 8-byte aligned in out, so a
// thread moves 4 elements per step (a char4 in, two half2 out), else one. Blocks are
// (lanes over a row) x (rows), so narrow rows still fill a block.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

template <int VEC>
__global__ void dequant_rows(const int8_t* __restrict__ q, const float* __restrict__ scale,
                             __half* __restrict__ out, int64_t rows, int64_t cols) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
    if (r >= rows) return;
    const float s = scale[r];
    const int8_t* qr = q + r * cols;
    __half* orow = out + r * cols;
    for (int64_t j = (int64_t)threadIdx.x * VEC; j < cols; j += (int64_t)blockDim.x * VEC) {
        if (VEC == 4) {
            const char4 v = *(const char4*)(qr + j);
            __half2* o = (__half2*)(orow + j);
            o[0] = __floats2half2_rn((float)v.x * s, (float)v.y * s);
            o[1] = __floats2half2_rn((float)v.z * s, (float)v.w * s);
        } else {
            orow[j] = __float2half((float)qr[j] * s);
        }
    }
}

template <int VEC>
static void launch_dequant(const int8_t* q, const float* scale, __half* out, int64_t rows,
                           int64_t cols, cudaStream_t st) {
    const int64_t units = (cols + VEC - 1) / VEC;
    int lanes = 4;
    while (lanes < 256 && lanes < units) lanes *= 2;
    const int rows_per_block = 256 / lanes;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    dequant_rows<VEC><<<(unsigned)blocks, dim3(lanes, rows_per_block), 0, st>>>(q, scale, out, rows, cols);
}

extern "C" int launch(const int8_t* q,      // [rows, cols]
                      const float* scale,   // [rows]
                      int64_t rows, int64_t cols,
                      __half* out,          // [rows, cols] output
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    // Tensor storage starts 16-byte aligned, so row starts are as aligned as cols allows.
    if (cols % 4 == 0) launch_dequant<4>(q, scale, out, rows, cols, st);
    else               launch_dequant<1>(q, scale, out, rows, cols, st);
    return cudaGetLastError() != cudaSuccess;
}
