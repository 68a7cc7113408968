// Rotary position embedding (rotate-half layout), float16 x, float32 cos/sin.
//
// Eager PyTorch runs slice, convert, four multiplies, two adds, cat and a convert, each a pass
// over memory; here each element is read and written once. A thread owns VEC consecutive
// rotation pairs (i, i + half) of one (token, head) row: VEC = 2 uses half2 / float2 accesses
// when half is even (then every row's halves are 4-byte aligned), else VEC = 1.
// Blocks are (lanes over pairs) x (rows), so short heads still fill a block.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>

template <int VEC>
__global__ void rope_kernel(const __half* __restrict__ x, const float* __restrict__ cos_t,
                            const float* __restrict__ sin_t, __half* __restrict__ out,
                            int64_t rows, int64_t heads, int64_t dim) {
    const int64_t row = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;  // row = token * heads + head
    if (row >= rows) return;
    const int64_t half = dim / 2, token = row / heads;
    const __half* xr = x + row * dim;
    __half* orow = out + row * dim;
    const float* c = cos_t + token * half;
    const float* s = sin_t + token * half;
    for (int64_t i = (int64_t)threadIdx.x * VEC; i < half; i += (int64_t)blockDim.x * VEC) {
        if (VEC == 2) {
            const float2 a = __half22float2(*(const __half2*)(xr + i));
            const float2 b = __half22float2(*(const __half2*)(xr + half + i));
            const float2 cc = *(const float2*)(c + i), ss = *(const float2*)(s + i);
            *(__half2*)(orow + i) = __floats2half2_rn(a.x * cc.x - b.x * ss.x, a.y * cc.y - b.y * ss.y);
            *(__half2*)(orow + half + i) = __floats2half2_rn(b.x * cc.x + a.x * ss.x, b.y * cc.y + a.y * ss.y);
        } else {
            const float a = __half2float(xr[i]), b = __half2float(xr[half + i]);
            orow[i] = __float2half(a * c[i] - b * s[i]);
            orow[half + i] = __float2half(b * c[i] + a * s[i]);
        }
    }
}

template <int VEC>
static void launch_rope(const __half* x, const float* c, const float* s, __half* out,
                        int64_t rows, int64_t heads, int64_t dim, hipStream_t st) {
    const int64_t units = dim / 2 / VEC;
    int lanes = 8;
    while (lanes < 128 && lanes < units) lanes *= 2;
    const int rows_per_block = 256 / lanes;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    rope_kernel<VEC><<<(unsigned)blocks, dim3(lanes, rows_per_block), 0, st>>>(x, c, s, out, rows, heads, dim);
}

extern "C" int launch(const __half* x,    // [tokens, heads, dim]
                      const float* cos,   // [tokens, dim / 2]
                      const float* sin,   // [tokens, dim / 2]
                      int64_t tokens, int64_t heads, int64_t dim,
                      __half* out,        // [tokens, heads, dim] output
                      void* stream) {
    if (tokens <= 0 || heads <= 0 || dim < 2) return 0;
    hipStream_t st = (hipStream_t)stream;
    const int64_t rows = tokens * heads;
    if ((dim / 2) % 2 == 0) launch_rope<2>(x, cos, sin, out, rows, heads, dim, st);
    else                    launch_rope<1>(x, cos, sin, out, rows, heads, dim, st);
    return hipGetLastError() != hipSuccess;
}
