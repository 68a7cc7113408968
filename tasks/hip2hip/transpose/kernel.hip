// Out-of-place transpose: out[c, r] = in[r, c], in is row-major [rows, cols], out is [cols, rows].
//
// Baseline: one thread per element. Reads are coalesced (consecutive threads read consecutive
// columns of one input row) but every store of a wavefront lands `rows` floats away from its
// neighbour, so each wavefront store touches as many memory lines as it has lanes.
#include <hip/hip_runtime.h>
#include <stdint.h>

__global__ void transpose_naive(const float* in, float* out, int64_t rows, int64_t cols) {
    const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    // grid.y is capped at 65535 blocks, so stride over the remaining rows.
    for (int64_t r = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; r < rows;
         r += (int64_t)gridDim.y * blockDim.y) {
        out[c * rows + r] = in[r * cols + c];
    }
}

extern "C" int launch(const float* in, int64_t rows, int64_t cols, float* out, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    const dim3 block(32, 8);
    const int64_t gx = (cols + block.x - 1) / block.x;
    int64_t gy = (rows + block.y - 1) / block.y;
    if (gy > 65535) gy = 65535;
    transpose_naive<<<dim3((unsigned)gx, (unsigned)gy), block, 0, (hipStream_t)stream>>>(in, out, rows, cols);
    return hipGetLastError() != hipSuccess;
}
