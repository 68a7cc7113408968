// Out-of-place transpose: out[c, r] = in[r, c], in is row-major [rows, cols], out is [cols, rows].
// See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* in,  // [rows, cols]
                      int64_t rows,
                      int64_t cols,
                      float* out,       // [cols, rows] output
                      void* stream) {
    (void)in; (void)rows; (void)cols; (void)out; (void)stream;
    return 0;
}
