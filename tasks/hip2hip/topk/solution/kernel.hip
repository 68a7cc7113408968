// Top-k (k <= 16) along each row of a float32 [rows, cols] tensor: sorted values and int64
// indices, ties to the lower column.
//
// One block per row, x read once. Each thread keeps the KM best (value, column) pairs of its
// strided slice in a sorted register list (KM = k rounded up to a power of two, so the list is
// unrolled and stays in registers); the lists go to shared memory and k rounds of a block-wide
// argmax over the threads' list heads pop the row's k best in order. A thread contributes at most
// k of the row's top k, so its KM >= k best are enough.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

// (v, i) ranks before (ov, oi): larger value first, then lower column.
__device__ __forceinline__ bool better(float v, int64_t i, float ov, int64_t oi) {
    return v > ov || (v == ov && i < oi);
}

template <int KM, int T>
__global__ void __launch_bounds__(T) topk_rows(const float* __restrict__ x, int64_t rows, int64_t cols,
                                               int64_t k, float* __restrict__ out_v,
                                               int64_t* __restrict__ out_i) {
    __shared__ float s_v[KM * T];
    __shared__ int64_t s_i[KM * T];
    __shared__ float red_v[T];
    __shared__ int64_t red_i[T];
    __shared__ int red_t[T];
    const int tid = threadIdx.x, nthreads = blockDim.x;  // a power of two <= T
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* xr = x + row * cols;
        float lv[KM];
        int64_t li[KM];
#pragma unroll
        for (int p = 0; p < KM; ++p) { lv[p] = -INFINITY; li[p] = INT64_MAX; }
        for (int64_t j = tid; j < cols; j += nthreads) {
            const float v = xr[j];
            if (better(v, j, lv[KM - 1], li[KM - 1])) {
                lv[KM - 1] = v; li[KM - 1] = j;
#pragma unroll
                for (int p = KM - 1; p > 0; --p) {  // bubble the new pair up to its place
                    if (better(lv[p], li[p], lv[p - 1], li[p - 1])) {
                        const float tv = lv[p]; lv[p] = lv[p - 1]; lv[p - 1] = tv;
                        const int64_t ti = li[p]; li[p] = li[p - 1]; li[p - 1] = ti;
                    }
                }
            }
        }
        // Each thread reads back only its own slots: no barrier needed before the rounds.
#pragma unroll
        for (int p = 0; p < KM; ++p) { s_v[p * nthreads + tid] = lv[p]; s_i[p * nthreads + tid] = li[p]; }
        int head = 0;
        for (int64_t r = 0; r < k; ++r) {
            red_v[tid] = head < KM ? s_v[head * nthreads + tid] : -INFINITY;
            red_i[tid] = head < KM ? s_i[head * nthreads + tid] : INT64_MAX;
            red_t[tid] = tid;
            __syncthreads();
            for (int s = nthreads / 2; s > 0; s >>= 1) {
                if (tid < s && better(red_v[tid + s], red_i[tid + s], red_v[tid], red_i[tid])) {
                    red_v[tid] = red_v[tid + s]; red_i[tid] = red_i[tid + s]; red_t[tid] = red_t[tid + s];
                }
                __syncthreads();
            }
            if (tid == 0) { out_v[row * k + r] = red_v[0]; out_i[row * k + r] = red_i[0]; }
            if (tid == red_t[0]) ++head;
            __syncthreads();  // red_* are rewritten by the next round
        }
    }
}

template <int KM>
static void launch_km(const float* x, int64_t rows, int64_t cols, int64_t k, float* v, int64_t* i,
                      hipStream_t st) {
    constexpr int T = KM >= 16 ? 128 : 256;  // keeps the shared lists under 48 KB
    int threads = 32;
    while (threads < T && threads < cols) threads *= 2;
    const int64_t blocks = rows < (1 << 20) ? rows : (1 << 20);
    topk_rows<KM, T><<<(unsigned)blocks, threads, 0, st>>>(x, rows, cols, k, v, i);
}

extern "C" int launch(const float* x,     // [rows, cols]
                      int64_t rows, int64_t cols, int64_t k,
                      float* values,      // [rows, k] output
                      int64_t* indices,   // [rows, k] output
                      void* stream) {
    if (rows <= 0 || k <= 0) return 0;
    if (k > 16 || k > cols) return 1;  // outside the contract
    hipStream_t st = (hipStream_t)stream;
    if (k == 1)      launch_km<1>(x, rows, cols, k, values, indices, st);
    else if (k == 2) launch_km<2>(x, rows, cols, k, values, indices, st);
    else if (k <= 4) launch_km<4>(x, rows, cols, k, values, indices, st);
    else if (k <= 8) launch_km<8>(x, rows, cols, k, values, indices, st);
    else             launch_km<16>(x, rows, cols, k, values, indices, st);
    return hipGetLastError() != hipSuccess;
}
