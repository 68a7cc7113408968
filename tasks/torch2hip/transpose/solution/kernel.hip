// Out-of-place transpose: out[c, r] = in[r, c], in is row-major [rows, cols], out is [cols, rows].
//
// Tiled through shared memory (LDS): a 32x8 block loads a 32x32 tile with coalesced reads along
// input rows, then writes it back with coalesced stores along output rows (= input columns).
// The tile row is padded to 33 floats so the column-wise LDS reads hit 32 different banks.
// Nothing depends on the wavefront size (32 or 64): threads only synchronise through
// __syncthreads. Every global index is bounds-checked, so partial edge tiles work.
#include <hip/hip_runtime.h>
#include <stdint.h>

constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;  // each thread moves TILE / BLOCK_ROWS = 4 elements per tile

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out,
                                int64_t rows, int64_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t c0 = (int64_t)blockIdx.x * TILE;  // first input column of the tile

    // grid.y is capped at 65535 blocks, so stride over the remaining tile rows.
    for (int64_t r0 = (int64_t)blockIdx.y * TILE; r0 < rows; r0 += (int64_t)gridDim.y * TILE) {
        const int64_t c = c0 + tx;
#pragma unroll
        for (int i = 0; i < TILE; i += BLOCK_ROWS) {
            const int k = ty + i;
            const int64_t r = r0 + k;
            if (r < rows && c < cols) tile[k][tx] = in[r * cols + c];
        }
        __syncthreads();
        // Output row c0 + k holds input column c0 + k; lanes walk along input rows r0 + tx.
        const int64_t r = r0 + tx;
#pragma unroll
        for (int i = 0; i < TILE; i += BLOCK_ROWS) {
            const int k = ty + i;
            const int64_t oc = c0 + k;
            if (oc < cols && r < rows) out[oc * rows + r] = tile[tx][k];
        }
        __syncthreads();  // the tile is reused by the next iteration
    }
}

extern "C" int launch(const float* in, int64_t rows, int64_t cols, float* out, void* stream) {
    if (rows <= 0 || cols <= 0) return 0;
    const dim3 block(TILE, BLOCK_ROWS);
    const int64_t gx = (cols + TILE - 1) / TILE;
    int64_t gy = (rows + TILE - 1) / TILE;
    if (gy > 65535) gy = 65535;
    transpose_tiled<<<dim3((unsigned)gx, (unsigned)gy), block, 0, (hipStream_t)stream>>>(in, out, rows, cols);
    return hipGetLastError() != hipSuccess;
}
