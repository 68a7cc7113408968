// Scatter-add of rows: out = x; out[index[i], :] += src[i, :], float32. See README.md.
//
// Stub: compiles and launches nothing, so it fails the correctness check. Replace it with a kernel.
#include <hip/hip_runtime.h>
#include <stdint.h>

extern "C" int launch(const float* x,        // [rows, dim]
                      const int64_t* index,  // [n]
                      const float* src,      // [n, dim]
                      int64_t rows, int64_t n, int64_t dim,
                      float* out,            // [rows, dim] output
                      void* stream) {
    (void)x; (void)index; (void)src; (void)rows; (void)n; (void)dim; (void)out; (void)stream;
    return 0;
}
