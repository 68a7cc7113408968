// Top-k / top-p filtering of float32 logits and inverse-CDF sampling, one token per row.
//
// One block per row. Logits map to order-preserving 32-bit keys (larger key, larger logit; -0.0 as
// +0.0), and both thresholds are found by bisection on the key, 32 steps of one pass each:
//   top-k: the largest key T with count(key >= T) >= k; of the tokens at T the first
//          k - count(key > T) by id are kept;
//   top-p: over the top-k tokens, with e = exp(x - max), the largest key P with
//          mass(key >= P) >= p * Z (Z their mass); of the tokens at P the first
//          ceil((p * Z - mass(key > P)) / e_P) by id (at least one).
// Then the kept mass M, and the first kept token by id whose cumulative mass exceeds u * M (the
// last kept one if none). Each thread owns a contiguous slice of the row, so ranks among equal keys
// and the cumulative mass in id order are a running count or sum within the slice plus an
// exclusive scan over the threads. Reductions go through shared memory (no warp shuffles), so the
// same code is right for 32- and 64-wide warps.
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <math.h>

#define THREADS 256

__device__ __forceinline__ uint32_t key_of(float x) {
    uint32_t b = __float_as_uint(x);
    if (b == 0x80000000u) b = 0u;                                  // -0.0 is +0.0
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

struct Shared {
    float f[THREADS];
    unsigned long long n[THREADS];
};

__device__ float sum_f(float v, Shared& s) {
    s.f[threadIdx.x] = v;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s.f[threadIdx.x] += s.f[threadIdx.x + k];
        __syncthreads();
    }
    const float out = s.f[0];
    __syncthreads();
    return out;
}

__device__ float max_f(float v, Shared& s) {
    s.f[threadIdx.x] = v;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s.f[threadIdx.x] = fmaxf(s.f[threadIdx.x], s.f[threadIdx.x + k]);
        __syncthreads();
    }
    const float out = s.f[0];
    __syncthreads();
    return out;
}

// op 0: sum, 1: max, 2: min
__device__ long long reduce_n(long long v, int op, Shared& s) {
    s.n[threadIdx.x] = (unsigned long long)v;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) {
            const long long a = (long long)s.n[threadIdx.x], b = (long long)s.n[threadIdx.x + k];
            s.n[threadIdx.x] = (unsigned long long)(op == 0 ? a + b : op == 1 ? (a > b ? a : b) : (a < b ? a : b));
        }
        __syncthreads();
    }
    const long long out = (long long)s.n[0];
    __syncthreads();
    return out;
}

// Exclusive prefix over the threads, in thread (= id) order: thread 0 walks the THREADS values.
__device__ long long scan_n(long long v, Shared& s) {
    s.n[threadIdx.x] = (unsigned long long)v;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long run = 0;
        for (int i = 0; i < THREADS; ++i) { const unsigned long long x = s.n[i]; s.n[i] = run; run += x; }
    }
    __syncthreads();
    const long long out = (long long)s.n[threadIdx.x];
    __syncthreads();
    return out;
}

__device__ float scan_f(float v, Shared& s) {
    s.f[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float run = 0.0f;
        for (int i = 0; i < THREADS; ++i) { const float x = s.f[i]; s.f[i] = run; run += x; }
    }
    __syncthreads();
    const float out = s.f[threadIdx.x];
    __syncthreads();
    return out;
}

__global__ void __launch_bounds__(THREADS) sample(const float* __restrict__ logits, const int64_t* __restrict__ top_k,
                                                  const float* __restrict__ top_p, const float* __restrict__ u,
                                                  int64_t V, int64_t* __restrict__ out) {
    __shared__ Shared s;
    const int64_t r = blockIdx.x;
    const float* x = logits + r * V;
    const int64_t chunk = (V + THREADS - 1) / THREADS;
    const int64_t beg = min(V, (int64_t)threadIdx.x * chunk), end = min(V, beg + chunk);
    const int64_t k = max((int64_t)1, min(V, top_k[r]));

    float mx = -INFINITY;
    for (int64_t i = beg; i < end; ++i) mx = fmaxf(mx, x[i]);
    mx = max_f(mx, s);

    // top-k threshold key
    unsigned long long lo = 0, hi = 1ull << 32;
    for (int it = 0; it < 32; ++it) {
        const unsigned long long mid = (lo + hi) / 2;
        long long c = 0;
        for (int64_t i = beg; i < end; ++i) c += key_of(x[i]) >= mid;
        if (reduce_n(c, 0, s) >= k) lo = mid; else hi = mid;
    }
    const uint32_t kt = (uint32_t)lo;
    long long gt = 0, eq = 0;
    for (int64_t i = beg; i < end; ++i) { const uint32_t key = key_of(x[i]); gt += key > kt; eq += key == kt; }
    const long long need_k = k - reduce_n(gt, 0, s);
    const long long eq_base = scan_n(eq, s);         // tokens at T in the slices before this one
#define IN_K(key, seen) ((key) > kt || ((key) == kt && (seen)++ < need_k))

    float z = 0.0f;
    {
        long long seen = eq_base;
        for (int64_t i = beg; i < end; ++i) { const uint32_t key = key_of(x[i]); if (IN_K(key, seen)) z += expf(x[i] - mx); }
    }
    z = sum_f(z, s);
    const float target = fmaxf(fmaxf(top_p[r], 0.0f) * z, 1e-30f);   // p <= 0 keeps the first token (z >= 1: the max is in)

    // top-p threshold key over the top-k tokens
    lo = 0; hi = 1ull << 32;
    for (int it = 0; it < 32; ++it) {
        const unsigned long long mid = (lo + hi) / 2;
        float m = 0.0f;
        long long seen = eq_base;
        for (int64_t i = beg; i < end; ++i) {
            const uint32_t key = key_of(x[i]);
            if (IN_K(key, seen) && key >= mid) m += expf(x[i] - mx);
        }
        if (sum_f(m, s) >= target) lo = mid; else hi = mid;
    }
    const uint32_t pt = (uint32_t)lo;
    float above = 0.0f, e_p = 0.0f;
    long long eqp = 0;
    {
        long long seen = eq_base;
        for (int64_t i = beg; i < end; ++i) {
            const uint32_t key = key_of(x[i]);
            if (IN_K(key, seen)) {
                const float e = expf(x[i] - mx);
                if (key > pt) above += e;
                else if (key == pt) { e_p = fmaxf(e_p, e); ++eqp; }
            }
        }
    }
    above = sum_f(above, s);
    e_p = max_f(e_p, s);
    const long long need_p = e_p > 0.0f ? max(1ll, (long long)ceilf((target - above) / e_p)) : 1ll;
    const long long eqp_base = scan_n(eqp, s);
#define KEPT(key, seen, seen_p) (IN_K(key, seen) && ((key) > pt || ((key) == pt && (seen_p)++ < need_p)))

    float part = 0.0f;
    long long last = -1;
    {
        long long seen = eq_base, seen_p = eqp_base;
        for (int64_t i = beg; i < end; ++i) {
            const uint32_t key = key_of(x[i]);
            if (KEPT(key, seen, seen_p)) { part += expf(x[i] - mx); last = i; }
        }
    }
    const float goal = u[r] * sum_f(part, s);
    last = reduce_n(last, 1, s);
    float run = scan_f(part, s);        // kept mass of the slices before this one
    long long first = V;
    if (run + part > goal) {            // the crossing may lie in this slice
        long long seen = eq_base, seen_p = eqp_base;
        for (int64_t i = beg; i < end; ++i) {
            const uint32_t key = key_of(x[i]);
            if (KEPT(key, seen, seen_p)) {
                run += expf(x[i] - mx);
                if (run > goal) { first = i; break; }
            }
        }
    }
    first = reduce_n(first, 2, s);
    if (threadIdx.x == 0) out[r] = first < V ? first : last;
}

extern "C" int launch(const float* logits, const int64_t* top_k, const float* top_p, const float* u,
                      int64_t batch, int64_t vocab, int64_t* out, void* stream) {
    if (batch <= 0 || vocab <= 0) return 0;
    sample<<<(unsigned)batch, THREADS, 0, (hipStream_t)stream>>>(logits, top_k, top_p, u, vocab, out);
    return hipGetLastError() != hipSuccess;
}
