// The guard's semantics test (results/hip-cpu-2026-11-29.md): three HIP-correct kernels HIP-CPU's own
// barriers get wrong, and the four shuffles with widths 16, 32, 64. Run by guard_semantics.py.
#include <hip/hip_runtime.h>
#include <stdint.h>
__global__ void early(int* cnt, int* out) {
    int t = threadIdx.x;
    if (t >= 32) { atomicAdd(cnt, 1); return; }
    __shared__ int s[32];
    s[t] = t; __syncthreads();
    out[t] = s[31 - t]; __syncthreads();
}
__global__ void divergent(float* out) {     // block reduction, last step in warp 0 only
    __shared__ float part[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = (float)threadIdx.x;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);
        if (lane == 0) part[0] = v;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = part[0];
}
__global__ void zero_leaves(int* out) {
    if (threadIdx.x == 0) return;
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x; __syncthreads();
    out[threadIdx.x] = s[64 - threadIdx.x];
}
__global__ void shuffles(int* out) {        // 128 threads: out[4*t + k]
    int t = threadIdx.x;
    out[4 * t + 0] = __shfl(t, 5, 16);
    out[4 * t + 1] = __shfl_up(t, 3, 32);
    out[4 * t + 2] = __shfl_down(t, 3, 64);
    out[4 * t + 3] = __shfl_xor(t, 1);
}
extern "C" int launch(int64_t which, int* cnt, int* out, float* fout, void* stream) {
    hipStream_t st = (hipStream_t)stream;
    if (which == 0) early<<<3, 64, 0, st>>>(cnt, out);
    if (which == 1) divergent<<<3, 256, 0, st>>>(fout);
    if (which == 2) zero_leaves<<<1, 64, 0, st>>>(out);
    if (which == 3) shuffles<<<1, 128, 0, st>>>(out);
    return hipGetLastError() != hipSuccess;
}
