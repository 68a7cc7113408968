// 3x3 convolution, stride 1, padding 1, with bias, float32 NCHW, small channel counts.
//
// Direct convolution (no im2col buffer, no TF32): a block of 32 x 8 threads computes a 32 x 32
// pixel tile of one image for CO_T = 16 output channels at a time; each thread owns 4 pixels of
// one column (rows ty, ty + 8, ty + 16, ty + 24) x 16 channels in registers. For every input
// channel the block stages the tile's 34 x 34 input window (zero-padded at the image border)
// and the 16 x 9 weights of that channel in shared memory. A thread then reuses each weight
// (a shared-memory broadcast) for its 4 pixels and each staged input for 3 taps. Every global
// index is 64-bit and bounds-checked, so any size works; the grid is 1-D (no 65535 caps).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int TW = 32, TH = 32;   // output tile: TW columns x TH rows
constexpr int BX = 32, BY = 8;    // threads: each computes TH / BY = 4 rows of one column
constexpr int ROWS_PER_THREAD = TH / BY;
constexpr int CO_T = 16;          // output channels per pass
constexpr int IW = TW + 2, IH = TH + 2;

__global__ void __launch_bounds__(BX * BY) conv3x3(const float* __restrict__ x, const float* __restrict__ weight,
                                                   const float* __restrict__ bias, int64_t batch, int64_t cin,
                                                   int64_t cout, int64_t height, int64_t width,
                                                   float* __restrict__ out, int64_t tiles_x, int64_t tiles_y) {
    __shared__ float in_tile[IH][IW + 1];   // +1: fewer bank conflicts on the column walk
    __shared__ float w_tile[CO_T][9];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
    int64_t t = blockIdx.x;
    const int64_t tile_x = t % tiles_x; t /= tiles_x;
    const int64_t tile_y = t % tiles_y;
    const int64_t b = t / tiles_y;
    const int64_t x0 = tile_x * TW, y0 = tile_y * TH;
    const int64_t ox = x0 + tx;
    const int64_t plane = height * width;

    for (int64_t co0 = 0; co0 < cout; co0 += CO_T) {
        float acc[CO_T][ROWS_PER_THREAD];
#pragma unroll
        for (int j = 0; j < CO_T; ++j) {
            const float bj = co0 + j < cout ? bias[co0 + j] : 0.0f;
#pragma unroll
            for (int p = 0; p < ROWS_PER_THREAD; ++p) acc[j][p] = bj;
        }
        for (int64_t ci = 0; ci < cin; ++ci) {
            const float* xc = x + (b * cin + ci) * plane;
            __syncthreads();  // the previous channel's tiles are no longer read
            for (int i = tid; i < IH * IW; i += BX * BY) {
                const int r = i / IW, c = i % IW;
                const int64_t gy = y0 + r - 1, gx = x0 + c - 1;
                in_tile[r][c] = (gy >= 0 && gy < height && gx >= 0 && gx < width) ? xc[gy * width + gx] : 0.0f;
            }
            if (tid < CO_T * 9) {
                const int j = tid / 9, k = tid % 9;
                w_tile[j][k] = co0 + j < cout ? weight[((co0 + j) * cin + ci) * 9 + k] : 0.0f;
            }
            __syncthreads();
            // The thread's input window: rows ty + 8p + (0..2), columns tx + (0..2).
            float win[ROWS_PER_THREAD][3][3];
#pragma unroll
            for (int p = 0; p < ROWS_PER_THREAD; ++p)
#pragma unroll
                for (int i = 0; i < 3; ++i)
#pragma unroll
                    for (int k = 0; k < 3; ++k) win[p][i][k] = in_tile[ty + p * BY + i][tx + k];
#pragma unroll
            for (int j = 0; j < CO_T; ++j) {
#pragma unroll
                for (int i = 0; i < 3; ++i)
#pragma unroll
                    for (int k = 0; k < 3; ++k) {
                        const float w = w_tile[j][i * 3 + k];
#pragma unroll
                        for (int p = 0; p < ROWS_PER_THREAD; ++p) acc[j][p] = fmaf(w, win[p][i][k], acc[j][p]);
                    }
            }
        }
        if (ox < width) {
#pragma unroll
            for (int j = 0; j < CO_T; ++j) {
                if (co0 + j >= cout) break;
                float* oc = out + (b * cout + co0 + j) * plane;
#pragma unroll
                for (int p = 0; p < ROWS_PER_THREAD; ++p) {
                    const int64_t oy = y0 + ty + p * BY;
                    if (oy < height) oc[oy * width + ox] = acc[j][p];
                }
            }
        }
    }
}

extern "C" int launch(const float* x,       // [batch, cin, height, width]
                      const float* weight,  // [cout, cin, 3, 3]
                      const float* bias,    // [cout]
                      int64_t batch, int64_t cin, int64_t cout, int64_t height, int64_t width,
                      float* out,           // [batch, cout, height, width] output
                      void* stream) {
    if (batch <= 0 || cout <= 0 || height <= 0 || width <= 0) return 0;
    if (cin <= 0) return 1;  // a convolution of no input channels is outside the contract
    const int64_t tiles_x = (width + TW - 1) / TW, tiles_y = (height + TH - 1) / TH;
    const int64_t blocks = batch * tiles_x * tiles_y;
    if (blocks > 2147483647) return 1;
    conv3x3<<<(unsigned)blocks, dim3(BX, BY), 0, (cudaStream_t)stream>>>(x, weight, bias, batch, cin, cout, height,
                                                                          width, out, tiles_x, tiles_y);
    return cudaGetLastError() != cudaSuccess;
}
