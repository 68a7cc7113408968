// Argmax over rows: y[r] = the column of the largest x[r, :] (int64; first one on ties).
// See README.md for the semantics and the argument layout.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,   // [rows, cols]
                      int64_t rows, int64_t cols,
                      int64_t* y,       // [rows] output
                      void* stream) {
    (void)x; (void)rows; (void)cols; (void)y; (void)stream;
    return 0;
}
