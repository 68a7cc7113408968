// GEMM with a fused epilogue: C = relu(A @ B + bias), A [m, k] and B [k, n] float16, bias [n]
// float32, C [m, n] float16, float32 accumulation. See README.md for the argument layout.
//
// A straightforward first kernel: the classic shared-memory tiled GEMM on the CUDA cores. A
// 256-thread block computes a 64 x 64 tile of C; K is walked in 16-wide slices, each slice of A
// and B loaded once into shared memory (converted to float32 there, zero outside the matrices,
// so any m, n, k works), and each thread accumulates a 4 x 4 patch of C in float32 registers.
// The epilogue adds the bias, applies relu and rounds to float16 once. No tensor cores, scalar
// 2-byte global loads, no overlap of the loads with the math.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define BM 64
#define BN 64
#define BK 16
#define THREADS 256   // 16 x 16 threads, 4 x 4 outputs each

__global__ void __launch_bounds__(THREADS)
matmul_bias_relu_tiled(const __half* a, const __half* b, const float* bias, __half* c,
                       int64_t m, int64_t n, int64_t k) {
    __shared__ __align__(16) float As[BK][BM];   // A slice, transposed: As[kk][row]
    __shared__ __align__(16) float Bs[BK][BN];   // B slice: Bs[kk][col]
    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;

    float acc[4][4] = {};
    for (int64_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int l = 0; l < (BM * BK) / THREADS; ++l) {   // A: 64 rows x 16 columns
            const int e = tid + l * THREADS, r = e / BK, cc = e % BK;
            const int64_t gr = m0 + r, gc = k0 + cc;
            As[cc][r] = (gr < m && gc < k) ? __half2float(a[gr * k + gc]) : 0.0f;
        }
#pragma unroll
        for (int l = 0; l < (BK * BN) / THREADS; ++l) {   // B: 16 rows x 64 columns
            const int e = tid + l * THREADS, r = e / BN, cc = e % BN;
            const int64_t gr = k0 + r, gc = n0 + cc;
            Bs[r][cc] = (gr < k && gc < n) ? __half2float(b[gr * n + gc]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float4 av = *reinterpret_cast<const float4*>(&As[kk][ty * 4]);
            const float4 bv = *reinterpret_cast<const float4*>(&Bs[kk][tx * 4]);
            const float ar[4] = {av.x, av.y, av.z, av.w};
            const float br[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
        }
        __syncthreads();   // the slice is overwritten next
    }

#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int64_t row = m0 + ty * 4 + i;
        if (row >= m) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int64_t col = n0 + tx * 4 + j;
            if (col < n) c[row * n + col] = __float2half_rn(fmaxf(acc[i][j] + bias[col], 0.0f));
        }
    }
}

extern "C" int launch(const __half* a,    // [m, k]
                      const __half* b,    // [k, n]
                      const float* bias,  // [n]
                      int64_t m, int64_t n, int64_t k,
                      __half* c,          // [m, n] output
                      void* stream) {
    if (m <= 0 || n <= 0) return 0;
    // m, n <= 8192: at most 128 tiles each way, inside gridDim.x and gridDim.y.
    const dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
    matmul_bias_relu_tiled<<<grid, THREADS, 0, (cudaStream_t)stream>>>(a, b, bias, c, m, n, k);
    return cudaGetLastError() != cudaSuccess;
}
