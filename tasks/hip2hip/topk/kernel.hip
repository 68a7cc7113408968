// Top-k (k <= 16) along each row of a float32 [rows, cols] tensor: sorted values and int64
// indices, ties to the lower column. See README.md for the argument layout.
//
// A straightforward first kernel: one warp per row segment. Each lane keeps the KC best
// (value, column) pairs of its strided slice in a sorted register list (KC = k rounded up to a
// power of two, so the list is unrolled and stays in registers); then k rounds of a warp-wide
// argmax over the lanes' list heads (shuffles) pop the segment's k best in order. A lane holds at
// most k of the segment's top k, so its KC >= k best are enough.
// Rows of up to SEGMENT columns are one segment each. Longer rows are cut into segments of
// SEGMENT columns so a few long rows still spread over the GPU: a first launch writes each
// segment's k best (value, column) pairs to a scratch buffer, a second one runs the same warp
// kernel over each row's candidates.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define SEGMENT 2048                // columns per warp when a row is split
#define MAX_CANDIDATES (1 << 18)    // scratch: the split path's (value, column) candidates

__device__ float g_cand_v[MAX_CANDIDATES];
__device__ int64_t g_cand_i[MAX_CANDIDATES];

// (v, i) ranks before (ov, oi): larger value first, then lower column. An empty slot is
// (-inf, INT64_MAX), so any real element ranks before it.
__device__ __forceinline__ bool better(float v, int64_t i, float ov, int64_t oi) {
    return v > ov || (v == ov && i < oi);
}

// Warp w handles segment w % segs of row w / segs: columns [seg * seg_len, +seg_len) of a row
// of `cols` values (xv) whose columns are xi[...] (or their positions when xi is null), and
// writes its k best to out_v / out_i[w * k ...].
template <int KC>
__global__ void __launch_bounds__(THREADS)
topk_warp(const float* xv, const int64_t* xi, int64_t rows, int64_t cols, int64_t segs, int64_t seg_len,
          int64_t k, float* out_v, int64_t* out_i) {
    const int64_t w = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (w >= rows * segs) return;  // the whole warp leaves together
    const int lane = threadIdx.x % 32;
    const int64_t row = w / segs, begin = (w % segs) * seg_len;
    const int64_t end = begin + seg_len < cols ? begin + seg_len : cols;
    const float* xr = xv + row * cols;
    const int64_t* ir = xi ? xi + row * cols : nullptr;

    float lv[KC];
    int64_t li[KC];
#pragma unroll
    for (int p = 0; p < KC; ++p) { lv[p] = -INFINITY; li[p] = INT64_MAX; }
    for (int64_t j = begin + lane; j < end; j += 32) {
        const float v = xr[j];
        const int64_t col = ir ? ir[j] : j;
        if (better(v, col, lv[KC - 1], li[KC - 1])) {
            lv[KC - 1] = v; li[KC - 1] = col;
#pragma unroll
            for (int p = KC - 1; p > 0; --p) {  // bubble the new pair up to its place
                if (better(lv[p], li[p], lv[p - 1], li[p - 1])) {
                    const float tv = lv[p]; lv[p] = lv[p - 1]; lv[p - 1] = tv;
                    const int64_t ti = li[p]; li[p] = li[p - 1]; li[p - 1] = ti;
                }
            }
        }
    }

    for (int64_t r = 0; r < k; ++r) {
        // Warp argmax of the lanes' heads; every lane ends with the winner.
        float bv = lv[0];
        int64_t bi = li[0];
        for (int off = 16; off > 0; off >>= 1) {
            const float ov = __shfl_xor(bv, off, 32);
            const int64_t oi = __shfl_xor(bi, off, 32);
            if (better(ov, oi, bv, bi)) { bv = ov; bi = oi; }
        }
        if (lane == 0) { out_v[w * k + r] = bv; out_i[w * k + r] = bi; }
        if (li[0] == bi) {  // the owner pops its head (columns are unique; empty slots pop harmlessly)
#pragma unroll
            for (int p = 0; p < KC - 1; ++p) { lv[p] = lv[p + 1]; li[p] = li[p + 1]; }
            lv[KC - 1] = -INFINITY; li[KC - 1] = INT64_MAX;
        }
    }
}

template <int KC>
static int run(const float* x, int64_t rows, int64_t cols, int64_t k, float* values, int64_t* indices,
                hipStream_t st) {
    int64_t segs = (cols + SEGMENT - 1) / SEGMENT;
    int64_t seg_len = SEGMENT;
    if (segs > 1 && rows * segs * k > MAX_CANDIDATES) {  // longer segments so the scratch suffices
        segs = MAX_CANDIDATES / (rows * k);
        if (segs > 1) { seg_len = (cols + segs - 1) / segs; segs = (cols + seg_len - 1) / seg_len; }
    }
    if (segs <= 1) {  // one warp per row
        topk_warp<KC><<<(unsigned)((rows + WARPS - 1) / WARPS), THREADS, 0, st>>>(
            x, nullptr, rows, cols, 1, cols, k, values, indices);
        return 0;
    }
    float* cand_v;
    int64_t* cand_i;
    if (hipGetSymbolAddress((void**)&cand_v, HIP_SYMBOL(g_cand_v)) != hipSuccess ||
        hipGetSymbolAddress((void**)&cand_i, HIP_SYMBOL(g_cand_i)) != hipSuccess)
        return 1;
    topk_warp<KC><<<(unsigned)((rows * segs + WARPS - 1) / WARPS), THREADS, 0, st>>>(
        x, nullptr, rows, cols, segs, seg_len, k, cand_v, cand_i);
    // Each row now has segs * k candidates (some empty slots when a segment is shorter than k).
    topk_warp<KC><<<(unsigned)((rows + WARPS - 1) / WARPS), THREADS, 0, st>>>(
        cand_v, cand_i, rows, segs * k, 1, segs * k, k, values, indices);
    return 0;
}

extern "C" int launch(const float* x,     // [rows, cols]
                      int64_t rows, int64_t cols, int64_t k,
                      float* values,      // [rows, k] output
                      int64_t* indices,   // [rows, k] output
                      void* stream) {
    if (rows <= 0 || k <= 0) return 0;
    if (k > 16 || k > cols) return 1;  // outside the contract
    hipStream_t st = (hipStream_t)stream;
    int err;
    if (k == 1)      err = run<1>(x, rows, cols, k, values, indices, st);
    else if (k == 2) err = run<2>(x, rows, cols, k, values, indices, st);
    else if (k <= 4) err = run<4>(x, rows, cols, k, values, indices, st);
    else if (k <= 8) err = run<8>(x, rows, cols, k, values, indices, st);
    else             err = run<16>(x, rows, cols, k, values, indices, st);
    return err || hipGetLastError() != hipSuccess;
}
