// Scaled SwiGLU: out[r, j] = silu(x[r, j]) * x[r, hidden + j] * scale, float16 in and out.
//
// PyTorch eager writes silu(gate) and silu(gate) * up to memory before the final scale; here each
// input is read once and the output written once, with float32 math and one rounding at the end.
// When hidden is a multiple of 8 and the pointers are 16-byte aligned, every gate/up/out row
// segment of 8 halves is one 16-byte access (a thread handles 8 outputs); otherwise a scalar
// path (one output per thread) handles any hidden. Grid-stride loops over rows * hidden outputs,
// with 64-bit indices.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

__device__ __forceinline__ float silu_mul(float g, float u, float scale) {
    return g / (1.0f + expf(-g)) * u * scale;  // expf(-g) = inf for g << 0 gives -0, as silu does
}

constexpr int VEC = 8;  // halves per 16-byte vector

__global__ void silu_mul_vec8(const __half* __restrict__ x, __half* __restrict__ out,
                              int64_t rows, int64_t hidden, float scale) {
    const int64_t vecs_per_row = hidden / VEC;
    const int64_t total = rows * vecs_per_row;
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < total;
         v += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = v / vecs_per_row, j = (v - r * vecs_per_row) * VEC;
        const __half* gate = x + r * 2 * hidden + j;
        const uint4 gv = *reinterpret_cast<const uint4*>(gate);
        const uint4 uv = *reinterpret_cast<const uint4*>(gate + hidden);
        // The halves go in and out of the 16-byte words by memcpy (registers, no memory): writing
        // them through a __half* into a uint4 is type punning C++ leaves undefined (g++ -O2 dropped
        // such stores in the HIP twin: results/hip-cpu-2026-11-29.md).
        __half ge[VEC], ue[VEC], oe[VEC];
        memcpy(ge, &gv, sizeof gv);
        memcpy(ue, &uv, sizeof uv);
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            oe[e] = __float2half_rn(silu_mul(__half2float(ge[e]), __half2float(ue[e]), scale));
        uint4 ov;
        memcpy(&ov, oe, sizeof ov);
        *reinterpret_cast<uint4*>(out + r * hidden + j) = ov;
    }
}

__global__ void silu_mul_scalar(const __half* __restrict__ x, __half* __restrict__ out,
                                int64_t rows, int64_t hidden, float scale) {
    const int64_t total = rows * hidden;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = i / hidden, j = i - r * hidden;
        const __half* gate = x + r * 2 * hidden + j;
        out[i] = __float2half_rn(silu_mul(__half2float(gate[0]), __half2float(gate[hidden]), scale));
    }
}

extern "C" int launch(const __half* x,  // [rows, 2 * hidden]
                      int64_t rows,
                      int64_t hidden,
                      float scale,
                      __half* out,      // [rows, hidden] output
                      void* stream) {
    if (rows <= 0 || hidden <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int threads = 256;
    const bool vectorized = hidden % VEC == 0 && ((uintptr_t)x % 16 == 0) && ((uintptr_t)out % 16 == 0);
    const int64_t work = vectorized ? rows * (hidden / VEC) : rows * hidden;
    int64_t blocks = (work + threads - 1) / threads;
    if (blocks > (1 << 20)) blocks = 1 << 20;  // grid-stride loop covers the rest
    if (vectorized)
        silu_mul_vec8<<<(unsigned)blocks, threads, 0, st>>>(x, out, rows, hidden, scale);
    else
        silu_mul_scalar<<<(unsigned)blocks, threads, 0, st>>>(x, out, rows, hidden, scale);
    return cudaGetLastError() != cudaSuccess;
}
