// Permute (0, 2, 1, 3): float16 [batch, seq, heads, dim] -> contiguous [batch, heads, seq, dim].
//
// Both layouts keep each (b, s, h) head vector of `dim` halves contiguous, so the permute is a
// gather of rows: output row (b, h, s) is input row (b, s, h). A thread group copies one row
// with the widest access the row alignment allows (16 bytes when dim % 8 == 0, 4 bytes when
// dim is even, else 2), so reads and writes are both coalesced along dim; blocks are
// (lanes over a row) x (rows), so short heads still fill a block.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>

template <typename V>
__global__ void permute_rows(const V* __restrict__ x, V* __restrict__ out, int64_t rows,
                             int64_t seq, int64_t heads, int64_t units) {
    const int64_t r = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;  // output row (b, h, s)
    if (r >= rows) return;
    const int64_t s = r % seq, bh = r / seq;
    const int64_t h = bh % heads, b = bh / heads;
    const V* src = x + ((b * seq + s) * heads + h) * units;
    V* dst = out + r * units;
    for (int64_t j = threadIdx.x; j < units; j += blockDim.x) dst[j] = src[j];
}

template <typename V>
static void launch_permute(const void* x, void* out, int64_t rows, int64_t seq, int64_t heads,
                           int64_t units, hipStream_t st) {
    int lanes = 4;
    while (lanes < 128 && lanes < units) lanes *= 2;
    const int rows_per_block = 256 / lanes;
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    permute_rows<V><<<(unsigned)blocks, dim3(lanes, rows_per_block), 0, st>>>(
        (const V*)x, (V*)out, rows, seq, heads, units);
}

extern "C" int launch(const __half* x,   // [batch, seq, heads, dim]
                      int64_t batch, int64_t seq, int64_t heads, int64_t dim,
                      __half* out,       // [batch, heads, seq, dim] output
                      void* stream) {
    if (batch <= 0 || seq <= 0 || heads <= 0 || dim <= 0) return 0;
    hipStream_t st = (hipStream_t)stream;
    const int64_t rows = batch * heads * seq;
    // Tensor storage starts 16-byte aligned, so row starts are as aligned as dim * 2 bytes.
    if (dim % 8 == 0)      launch_permute<uint4>(x, out, rows, seq, heads, dim / 8, st);
    else if (dim % 2 == 0) launch_permute<uint32_t>(x, out, rows, seq, heads, dim / 2, st);
    else                   launch_permute<uint16_t>(x, out, rows, seq, heads, dim, st);
    return hipGetLastError() != hipSuccess;
}
