// GEMM: C = A @ B, A [m, k] and B [k, n] float16, C [m, n] float16, float32 accumulation.
//
// A shared-memory tiled GEMM on the vector ALUs (no matrix-core intrinsics, so the same source
// builds for any gfx target): one 256-thread block per 64 x 64 tile of C, K walked in 16-wide
// slices staged in shared memory as float32 (A transposed, so a thread reads its 4 rows as one
// column), 4 x 4 outputs per thread accumulated in registers with FMAs. Out-of-range elements are
// staged as 0, so any m, n, k works. The epilogue rounds to float16 once and writes C once. Nothing depends on the wavefront width.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>

constexpr int THREADS = 256;
constexpr int BM = 64, BN = 64, BK = 16;
constexpr int TM = 4, TN = 4;
constexpr int COLS = BN / TN;  // threads across a tile row
static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "whole loads per thread");
static_assert((BM / TM) * (BN / TN) == THREADS, "one output group per thread");

__global__ void __launch_bounds__(THREADS) matmul_tiles(
        const __half* __restrict__ A, const __half* __restrict__ B,
        __half* __restrict__ C, int64_t m, int64_t n, int64_t k, int64_t tiles_n) {
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN];
    const int64_t m0 = (int64_t)(blockIdx.x / tiles_n) * BM;
    const int64_t n0 = (int64_t)(blockIdx.x % tiles_n) * BN;
    const int tid = threadIdx.x, tx = tid % COLS, ty = tid / COLS;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    for (int64_t k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
        for (int r = 0; r < BM * BK / THREADS; ++r) {  // consecutive threads: consecutive k (coalesced)
            const int i = tid + r * THREADS, row = i / BK, kk = i % BK;
            const int64_t gr = m0 + row, gk = k0 + kk;
            As[kk][row] = (gr < m && gk < k) ? __half2float(A[gr * k + gk]) : 0.0f;
        }
#pragma unroll
        for (int r = 0; r < BK * BN / THREADS; ++r) {
            const int i = tid + r * THREADS, kk = i / BN, col = i % BN;
            const int64_t gk = k0 + kk, gc = n0 + col;
            Bs[kk][col] = (gk < k && gc < n) ? __half2float(B[gk * n + gc]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float av[TM], bv[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) av[i] = As[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) bv[j] = Bs[kk][tx + j * COLS];  // neighbours read neighbouring columns
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();  // the slice is consumed before the next one overwrites it
    }
#pragma unroll
    for (int j = 0; j < TN; ++j) {
        const int64_t col = n0 + tx + j * COLS;
        if (col >= n) continue;
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int64_t row = m0 + ty * TM + i;
            if (row < m) C[row * n + col] = __float2half_rn(acc[i][j]);
        }
    }
}

extern "C" int launch(const __half* a,    // [m, k]
                      const __half* b,    // [k, n]
                      int64_t m, int64_t n, int64_t k,
                      __half* c,          // [m, n] output
                      void* stream) {
    if (m <= 0 || n <= 0) return 0;
    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    matmul_tiles<<<(unsigned)(tiles_m * tiles_n), THREADS, 0, (hipStream_t)stream>>>(
        a, b, c, m, n, k, tiles_n);
    return hipGetLastError() != hipSuccess;
}
