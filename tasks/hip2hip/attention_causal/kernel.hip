// Causal attention (prefill): out = softmax(mask(q k^T / sqrt(dim))) v per (sequence, head),
// float16 q, k, v and out, float32 math; dim = 64. See README.md.
//
// Baseline: a straightforward flash-style first kernel, no matrix cores. One thread per query row,
// 64 rows (64 threads: one CDNA wavefront) per block. A thread keeps in float32 registers its row
// of q (scaled by log2(e) / sqrt(dim), so exp2f gives the softmax's exp), its 64-wide output
// accumulator, and the row's running max and running sum. The block walks the keys up to its last
// row in 32-key tiles of K and V, staged in shared memory as float32; per tile each thread computes
// its visible scores (keys j <= its row) into a shared-memory column of its own, rescales its
// accumulator once by the tile's new max (online softmax), then adds p * v for each of those keys.
// The seq x seq score matrix is never materialised. Blocks with the most tiles start first. No
// shuffles: nothing depends on the wavefront's width.
// Correct for any batch, heads and seq (and any dim up to 64), but not tuned: every product is a
// scalar float32 FMA (no matrix cores), each score is a 64-term dot in one thread with K and V read
// back from shared memory for every row, a block is a single wavefront so the last blocks of a long
// sequence run long on few wavefronts, the tiles are loaded 2 bytes a thread with no overlap of the
// next tile's load, and the diagonal tiles leave threads idle.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <math.h>
#include <stdint.h>

constexpr int ROWS = 64;     // query rows (threads) per block
constexpr int TILE = 32;     // keys per shared-memory tile
constexpr int MAX_DIM = 64;  // head dims held per thread; a smaller dim is zero-padded

__global__ void __launch_bounds__(ROWS) attention_causal_rows(
        const __half* __restrict__ q, const __half* __restrict__ k, const __half* __restrict__ v,
        __half* __restrict__ out, int64_t seq, int dim, int64_t tiles_m, float qscale) {
    __shared__ __align__(16) float Ks[TILE][MAX_DIM];
    __shared__ __align__(16) float Vs[TILE][MAX_DIM];
    __shared__ float S[TILE][ROWS];  // the tile's scores, one column per thread

    const int64_t bh = blockIdx.x / tiles_m;
    const int64_t row0 = (tiles_m - 1 - (int64_t)(blockIdx.x % tiles_m)) * ROWS;  // heavy blocks first
    const int tid = threadIdx.x;
    const int64_t row = row0 + tid;
    const bool live = row < seq;
    const int64_t base = bh * seq * dim;

    float qr[MAX_DIM], acc[MAX_DIM];
#pragma unroll
    for (int d = 0; d < MAX_DIM; ++d) {
        qr[d] = live && d < dim ? __half2float(q[base + row * dim + d]) * qscale : 0.0f;
        acc[d] = 0.0f;
    }
    float run_max = -INFINITY, den = 0.0f;

    // Keys past the block's last row are masked for all its rows.
    const int64_t key_end = row0 + ROWS < seq ? row0 + ROWS : seq;
    for (int64_t k0 = 0; k0 < key_end; k0 += TILE) {
        __syncthreads();  // the previous tile is consumed
        for (int i = tid; i < TILE * MAX_DIM; i += ROWS) {
            const int j = i / MAX_DIM, d = i % MAX_DIM;
            const int64_t key = k0 + j;
            const bool ok = key < seq && d < dim;
            Ks[j][d] = ok ? __half2float(k[base + key * dim + d]) : 0.0f;
            Vs[j][d] = ok ? __half2float(v[base + key * dim + d]) : 0.0f;
        }
        __syncthreads();

        // This row sees keys k0 .. row of the tile: n of them (none for a padding row past seq).
        const int64_t visible = live ? row + 1 - k0 : 0;
        const int n = visible <= 0 ? 0 : visible >= TILE ? TILE : (int)visible;
        if (n == 0) continue;

        float tile_max = -INFINITY;
        for (int j = 0; j < n; ++j) {
            const float4* kr = reinterpret_cast<const float4*>(Ks[j]);
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
#pragma unroll
            for (int d4 = 0; d4 < MAX_DIM / 4; ++d4) {
                const float4 kv = kr[d4];
                s0 = fmaf(qr[4 * d4 + 0], kv.x, s0);
                s1 = fmaf(qr[4 * d4 + 1], kv.y, s1);
                s2 = fmaf(qr[4 * d4 + 2], kv.z, s2);
                s3 = fmaf(qr[4 * d4 + 3], kv.w, s3);
            }
            const float s = (s0 + s1) + (s2 + s3);
            S[j][tid] = s;
            tile_max = fmaxf(tile_max, s);
        }
        const float new_max = fmaxf(run_max, tile_max);   // finite: n >= 1
        const float corr = exp2f(run_max - new_max);      // 0 on the row's first tile
        den *= corr;
#pragma unroll
        for (int d = 0; d < MAX_DIM; ++d) acc[d] *= corr;
        for (int j = 0; j < n; ++j) {
            const float p = exp2f(S[j][tid] - new_max);
            den += p;
            const float4* vr = reinterpret_cast<const float4*>(Vs[j]);
#pragma unroll
            for (int d4 = 0; d4 < MAX_DIM / 4; ++d4) {
                const float4 vv = vr[d4];
                acc[4 * d4 + 0] = fmaf(p, vv.x, acc[4 * d4 + 0]);
                acc[4 * d4 + 1] = fmaf(p, vv.y, acc[4 * d4 + 1]);
                acc[4 * d4 + 2] = fmaf(p, vv.z, acc[4 * d4 + 2]);
                acc[4 * d4 + 3] = fmaf(p, vv.w, acc[4 * d4 + 3]);
            }
        }
        run_max = new_max;
    }

    if (!live) return;
    const float inv = 1.0f / den;  // den >= 1: the max's own term is exp2(0)
#pragma unroll
    for (int d = 0; d < MAX_DIM; ++d)
        if (d < dim) out[base + row * dim + d] = __float2half_rn(acc[d] * inv);
}

extern "C" int launch(const __half* q,   // [batch, heads, seq, dim]
                      const __half* k,   // [batch, heads, seq, dim]
                      const __half* v,   // [batch, heads, seq, dim]
                      int64_t batch, int64_t heads, int64_t seq, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    const int64_t bh = batch * heads;
    if (bh <= 0 || seq <= 0 || dim <= 0) return 0;
    if (dim > MAX_DIM) return 1;  // the contract: dim is 64
    const int64_t tiles_m = (seq + ROWS - 1) / ROWS;
    const float qscale = 1.4426950408889634f / sqrtf((float)dim);  // log2(e) / sqrt(dim)
    attention_causal_rows<<<(unsigned)(bh * tiles_m), ROWS, 0, (hipStream_t)stream>>>(
        q, k, v, out, seq, (int)dim, tiles_m, qscale);
    return hipGetLastError() != hipSuccess;
}
