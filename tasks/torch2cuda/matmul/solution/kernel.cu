// GEMM: C = A @ B, A [m, k] and B [k, n] float16, C [m, n] float16, float32 accumulation.
//
// Tensor cores through WMMA (16 x 16 x 16 float16 products into float32 fragments). One 256-thread
// block computes a 128 x 128 tile of C; its 8 warps form a 2 x 4 grid, each owning a 64 x 32
// patch (4 x 2 fragments). K is walked in 32-wide slices staged in shared memory; the next
// slice's global loads are issued into registers before the current slice's MMAs, so memory and
// math overlap. Loads move 16-byte chunks (8 halves) when k and n are multiples of 8 and the
// pointers 16-byte aligned; otherwise element by element. Out-of-range elements are staged as 0,
// so any m, n, k works. The epilogue goes fragment by fragment through a small per-warp buffer:
// one rounding to float16, a masked store -- C is written once.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int THREADS = 256;
constexpr int WARPS_N = 4;                  // warps along n (2 along m)
constexpr int WM = 64, WN = 32;             // each warp's patch of C
constexpr int FM = WM / 16, FN = WN / 16;   // its fragments
constexpr int CHUNK = 8;                    // halves per 16-byte chunk
constexpr int A_LD = BK + CHUNK;            // padded rows: 16-byte aligned, fewer bank conflicts
constexpr int B_LD = BN + CHUNK;
constexpr int A_CHUNKS = BM * BK / CHUNK / THREADS;   // chunks of the A slice per thread
constexpr int B_CHUNKS = BK * BN / CHUNK / THREADS;
static_assert(A_CHUNKS * CHUNK * THREADS == BM * BK && B_CHUNKS * CHUNK * THREADS == BK * BN, "whole chunks");
static_assert((BM / WM) * (BN / WN) * 32 == THREADS, "one patch per warp");

// Halves [col, col + 8) of row `row` of a row-major [rows, cols] matrix; zero past the edges.
// VEC: cols is a multiple of 8 and the matrix 16-byte aligned, so a chunk is wholly in or out.
template <bool VEC>
__device__ __forceinline__ uint4 load_chunk(const __half* __restrict__ mat, int64_t rows, int64_t cols,
                                            int64_t row, int64_t col) {
    if (row >= rows || col >= cols) return make_uint4(0u, 0u, 0u, 0u);
    const __half* p = mat + row * cols + col;
    if constexpr (VEC) {
        return *reinterpret_cast<const uint4*>(p);
    } else {
        uint32_t w[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const uint32_t lo = (col + 2 * i < cols) ? (uint32_t)__half_as_ushort(p[2 * i]) : 0u;
            const uint32_t hi = (col + 2 * i + 1 < cols) ? (uint32_t)__half_as_ushort(p[2 * i + 1]) : 0u;
            w[i] = lo | (hi << 16);  // little-endian: the lower address is the lower half-word
        }
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS) matmul_wmma(
        const __half* __restrict__ A, const __half* __restrict__ B, __half* __restrict__ C, int64_t m, int64_t n, int64_t k, int64_t tiles_n) {
    __shared__ __align__(128) __half As[BM * A_LD];
    __shared__ __align__(128) __half Bs[BK * B_LD];
    __shared__ __align__(128) float staging[THREADS / 32][16 * 16];

    const int64_t m0 = (int64_t)(blockIdx.x / tiles_n) * BM;
    const int64_t n0 = (int64_t)(blockIdx.x % tiles_n) * BN;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int warp_m = warp / WARPS_N, warp_n = warp % WARPS_N;

    uint4 ra[A_CHUNKS], rb[B_CHUNKS];
    auto fetch = [&](int64_t k0) {
#pragma unroll
        for (int i = 0; i < A_CHUNKS; ++i) {
            const int t = tid + i * THREADS, row = t / (BK / CHUNK), col = (t % (BK / CHUNK)) * CHUNK;
            ra[i] = load_chunk<VEC>(A, m, k, m0 + row, k0 + col);
        }
#pragma unroll
        for (int i = 0; i < B_CHUNKS; ++i) {
            const int t = tid + i * THREADS, row = t / (BN / CHUNK), col = (t % (BN / CHUNK)) * CHUNK;
            rb[i] = load_chunk<VEC>(B, k, n, k0 + row, n0 + col);
        }
    };
    auto stage = [&]() {
#pragma unroll
        for (int i = 0; i < A_CHUNKS; ++i) {
            const int t = tid + i * THREADS, row = t / (BK / CHUNK), col = (t % (BK / CHUNK)) * CHUNK;
            *reinterpret_cast<uint4*>(&As[row * A_LD + col]) = ra[i];
        }
#pragma unroll
        for (int i = 0; i < B_CHUNKS; ++i) {
            const int t = tid + i * THREADS, row = t / (BN / CHUNK), col = (t % (BN / CHUNK)) * CHUNK;
            *reinterpret_cast<uint4*>(&Bs[row * B_LD + col]) = rb[i];
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    fetch(0);
    for (int64_t k0 = 0; k0 < k; k0 += BK) {
        stage();
        __syncthreads();
        if (k0 + BK < k) fetch(k0 + BK);  // in flight during this slice's MMAs
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(fa[i], &As[(warp_m * WM + i * 16) * A_LD + kk], A_LD);
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(fb[j], &Bs[kk * B_LD + warp_n * WN + j * 16], B_LD);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // the slice is consumed before the next stage() overwrites it
    }

    float* buf = staging[warp];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            wmma::store_matrix_sync(buf, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int64_t row0 = m0 + warp_m * WM + i * 16, col0 = n0 + warp_n * WN + j * 16;
#pragma unroll
            for (int e = lane; e < 256; e += 32) {  // half a warp per 16-wide row: 32-byte stores
                const int64_t row = row0 + e / 16, col = col0 + e % 16;
                if (row < m && col < n) C[row * n + col] = __float2half_rn(buf[e]);
            }
            __syncwarp();  // the buffer is read before the next fragment lands in it
        }
    }
}

extern "C" int launch(const __half* a,    // [m, k]
                      const __half* b,    // [k, n]
                      int64_t m, int64_t n, int64_t k,
                      __half* c,          // [m, n] output
                      void* stream) {
    if (m <= 0 || n <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const unsigned blocks = (unsigned)(tiles_m * tiles_n);  // grid.x holds up to 2^31 - 1 tiles
    const bool vec = k % CHUNK == 0 && n % CHUNK == 0 && (uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0;
    if (vec) matmul_wmma<true><<<blocks, THREADS, 0, st>>>(a, b, c, m, n, k, tiles_n);
    else     matmul_wmma<false><<<blocks, THREADS, 0, st>>>(a, b, c, m, n, k, tiles_n);
    return cudaGetLastError() != cudaSuccess;
}
