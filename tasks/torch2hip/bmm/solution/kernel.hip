// Batched matrix multiply of small float32 matrices, C[b] = A[b] @ B[b], IEEE float32 FMAs.
//
// One 256-thread block per BM x BN tile of one matrix (blocks enumerate batch x tiles on grid.x,
// which has room for any batch). K is walked in BK = 16 slices staged in shared memory (A
// transposed, so a thread reads its TM rows as one column); each thread accumulates TM x TN
// outputs in registers. Matrices of 64+ rows and columns use 64 x 64 tiles (4 x 4 per thread);
// smaller ones 16 x 16 tiles (1 per thread), so tiny matrices do not waste most of a block.
#include <hip/hip_runtime.h>
#include <stdint.h>

constexpr int THREADS = 256;
constexpr int BK = 16;

template <int BM, int BN, int TM, int TN>
__global__ void __launch_bounds__(THREADS) bmm_tiles(const float* __restrict__ A, const float* __restrict__ B,
                                                     float* __restrict__ C, int64_t m, int64_t n, int64_t k,
                                                     int64_t tiles_m, int64_t tiles_n) {
    static_assert((BM / TM) * (BN / TN) == THREADS, "one output group per thread");
    constexpr int COLS = BN / TN;  // threads across a tile row
    __shared__ float As[BK][BM + 1];
    __shared__ float Bs[BK][BN];
    const int64_t tiles = tiles_m * tiles_n;
    const int64_t bat = blockIdx.x / tiles, t = blockIdx.x - bat * tiles;
    const int64_t m0 = (t / tiles_n) * BM, n0 = (t % tiles_n) * BN;
    const float* Ab = A + bat * m * k;
    const float* Bb = B + bat * k * n;
    const int tid = threadIdx.x, tx = tid % COLS, ty = tid / COLS;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    for (int64_t k0 = 0; k0 < k; k0 += BK) {
        for (int i = tid; i < BM * BK; i += THREADS) {  // consecutive threads: consecutive k (coalesced)
            const int row = i / BK, kk = i % BK;
            const int64_t gr = m0 + row, gk = k0 + kk;
            As[kk][row] = (gr < m && gk < k) ? Ab[gr * k + gk] : 0.0f;
        }
        for (int i = tid; i < BK * BN; i += THREADS) {
            const int kk = i / BN, col = i % BN;
            const int64_t gk = k0 + kk, gc = n0 + col;
            Bs[kk][col] = (gk < k && gc < n) ? Bb[gk * n + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float av[TM], bv[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) av[i] = As[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) bv[j] = Bs[kk][tx + j * COLS];  // a warp reads consecutive columns
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int64_t row = m0 + ty * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int64_t col = n0 + tx + j * COLS;
            if (row < m && col < n) C[bat * m * n + row * n + col] = acc[i][j];
        }
    }
}

template <int BM, int BN, int TM, int TN>
static void launch_tiles(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t n,
                         int64_t k, hipStream_t st) {
    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    bmm_tiles<BM, BN, TM, TN><<<(unsigned)(batch * tiles_m * tiles_n), THREADS, 0, st>>>(
        a, b, c, m, n, k, tiles_m, tiles_n);
}

extern "C" int launch(const float* a,   // [batch, m, k]
                      const float* b,   // [batch, k, n]
                      int64_t batch, int64_t m, int64_t n, int64_t k,
                      float* c,         // [batch, m, n] output
                      void* stream) {
    if (batch <= 0 || m <= 0 || n <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    if (m >= 64 && n >= 64) launch_tiles<64, 64, 4, 4>(a, b, c, batch, m, n, k, st);
    else                    launch_tiles<16, 16, 1, 1>(a, b, c, batch, m, n, k, st);
    return hipGetLastError() != hipSuccess;
}
