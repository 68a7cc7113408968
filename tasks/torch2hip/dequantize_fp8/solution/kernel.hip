// Dequantize FP8 (e4m3fn) with a float32 scale per row: out[r, c] = bf16(float(q[r, c]) * scale[r]).
//
// Bound by memory (1 byte in, 2 out per element). A thread group walks one row, loading its scale
// once; when cols % 4 == 0 every row starts 4-byte aligned in q and 8-byte aligned in out, so a
// thread moves 4 elements per step (one 32-bit load, one 64-bit store), else one. Blocks are
// (lanes over a row) x (rows), so narrow rows still fill a block. The e4m3fn decode and the
// bfloat16 rounding are written out, so no FP8 or bfloat16 header is needed (the HIP twin is the
// same code).
#include <hip/hip_runtime.h>
#include <stdint.h>

// An e4m3fn code as a float (exact): (1 + m/8) * 2^(e-7), or m * 2^-9 when e == 0. NaN's codes
// do not occur in this task's inputs.
__device__ __forceinline__ float e4m3fn_to_float(uint32_t c) {
    const uint32_t e = (c >> 3) & 0xFu, m = c & 7u;
    const float v = e ? __uint_as_float(((e + 120u) << 23) | (m << 20)) : (float)m * 0.001953125f;
    return (c & 0x80u) ? -v : v;
}

// A finite float to bfloat16 bits, round to nearest, ties to even.
__device__ __forceinline__ uint32_t bf16_bits(float f) {
    const uint32_t u = __float_as_uint(f);
    return (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
}

template <int VEC>
__global__ void dequant_rows(const uint8_t* __restrict__ q, const float* __restrict__ scale,
                             uint16_t* __restrict__ out, int64_t rows, int64_t cols) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
    if (r >= rows) return;
    const float s = scale[r];
    const uint8_t* qr = q + r * cols;
    uint16_t* orow = out + r * cols;
    for (int64_t j = (int64_t)threadIdx.x * VEC; j < cols; j += (int64_t)blockDim.x * VEC) {
        if (VEC == 4) {
            const uint32_t w = *(const uint32_t*)(qr + j);
            uint2 o;
            o.x = bf16_bits(e4m3fn_to_float(w & 0xFFu) * s) | (bf16_bits(e4m3fn_to_float((w >> 8) & 0xFFu) * s) << 16);
            o.y = bf16_bits(e4m3fn_to_float((w >> 16) & 0xFFu) * s) | (bf16_bits(e4m3fn_to_float(w >> 24) * s) << 16);
            *(uint2*)(orow + j) = o;
        } else {
            orow[j] = (uint16_t)bf16_bits(e4m3fn_to_float(qr[j]) * s);
        }
    }
}

template <int VEC>
static void launch_dequant(const uint8_t* q, const float* scale, uint16_t* out, int64_t rows,
                           int64_t cols, hipStream_t st) {
    const int64_t units = (cols + VEC - 1) / VEC;
    int lanes = 4;
    while (lanes < 256 && lanes < units) lanes *= 2;
    const int rows_per_block = 256 / lanes;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    dequant_rows<VEC><<<(unsigned)blocks, dim3(lanes, rows_per_block), 0, st>>>(q, scale, out, rows, cols);
}

extern "C" int launch(const uint8_t* q,     // [rows, cols] e4m3fn bits
                      const float* scale,   // [rows]
                      int64_t rows, int64_t cols,
                      uint16_t* out,        // [rows, cols] output, bfloat16 bits
                      void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    // Tensor storage starts 16-byte aligned, so row starts are as aligned as cols allows.
    if (cols % 4 == 0) launch_dequant<4>(q, scale, out, rows, cols, st);
    else               launch_dequant<1>(q, scale, out, rows, cols, st);
    return hipGetLastError() != hipSuccess;
}
