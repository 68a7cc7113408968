"""3x3 convolution, stride 1, padding 1, with bias, float32 NCHW, in Triton (small channel counts).

Implicit GEMM: out[m, n] = bias[n] + sum_k A[m, k] * W[n, k], with m a pixel of the whole batch
(b, oy, ox) flattened, n the output channel and k = ci * 9 + tap the weight's own layout, so W is
read in place. A is im2col gathered on the fly and never stored: a K-block of it loads
x[b, ci, oy + dy, ox + dx], masked to zero outside the image. Each pixel's nine tap validities are
packed into a 9-bit mask once per program, so the per-element mask is a shift-and-test. tl.dot runs
in IEEE float32 (input_precision="ieee": no TF32 on a float32 task), on the FMA units.

Pixels are flattened over the batch, so small images (31x17, 1x1) waste no tile rows. The old
direct kernel (one outer product per input channel and tap, ~100 programs on 56x56) lost to cuDNN
up to 4x; tiles here come from a sweep on an H100 (cold L2):
  * many pixels (>= 32K) and cout <= 16: TRANS, [16 channels, 64 pixels] tiles, acc = W @ A^T,
    pixels on the fast axis of the gathered tile and of the output store (coalesced even though the
    flattened pixel index hides its contiguity from the compiler): 2.6x and 2x cuDNN;
  * otherwise acc = A @ W^T with all channels in one tile (splitting cout > 16 over a second grid
    axis, or TRANS, measured 1.2-2.5x slower there) and BLOCK_M halved until there is about a
    program per SM; K >= 128 takes K-blocks of 32 with a 3-stage pipeline.
cout = 32 with cin = 32 on 56x56 stays slower than cuDNN (~34 vs ~22 us): 98-196 programs of
IEEE-float32 FMA dots cannot fill the GPU; a split over K would need a second reduction pass.
"""
import torch
import triton
import triton.language as tl

_MIN_PROGRAMS = 132           # one per SM on an H100 (132 SMs)


@triton.jit
def _conv3x3_igemm(x_ptr, w_ptr, b_ptr, out_ptr, M, H, W, CIN, COUT,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   TRANS: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        pid = pid.to(tl.int64)
    plane = H * W
    K = CIN * 9
    m = pid * BLOCK_M + tl.arange(0, BLOCK_M)          # output pixel over the batch
    m_ok = m < M
    img = m // plane
    p = m - img * plane
    oy = p // W
    ox = p - oy * W
    x_row = img * (CIN * plane) + p                     # x[b, 0, oy, ox]
    # Bit (i * 3 + j) set when tap (dy, dx) = (i - 1, j - 1) lies inside the image.
    cols3 = (ox > 0).to(tl.int32) | 2 | ((ox < W - 1).to(tl.int32) << 2)
    valid = (tl.where(oy > 0, cols3, 0) | (cols3 << 3) | tl.where(oy < H - 1, cols3 << 6, 0))
    valid = tl.where(m_ok, valid, 0)
    o_row = img * (COUT * plane) + p                    # out[b, 0, oy, ox]

    n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = n < COUT
    bias = tl.load(b_ptr + n, mask=n_ok, other=0.0)
    if TRANS:   # acc[n, m] = W[n, :] @ A^T[:, m]: pixels on the fast axis of every tile
        acc = tl.zeros([BLOCK_N, BLOCK_M], tl.float32)
    else:       # acc[m, n] = A[m, :] @ W^T[:, n]
        acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        k_ok = k < K
        ci = k // 9
        tap = k - ci * 9
        dy = tap // 3
        dx = tap - dy * 3
        k_off = ci * plane + (dy - 1) * W + (dx - 1)
        k_bit = tl.where(k_ok, 1 << tap, 0)
        if TRANS:
            a = tl.load(x_ptr + k_off[:, None] + x_row[None, :],
                        mask=(k_bit[:, None] & valid[None, :]) != 0, other=0.0)
            w = tl.load(w_ptr + n[:, None] * K + k[None, :], mask=n_ok[:, None] & k_ok[None, :],
                        other=0.0)
            acc = tl.dot(w, a, acc, input_precision="ieee")
        else:
            a = tl.load(x_ptr + x_row[:, None] + k_off[None, :],
                        mask=(valid[:, None] & k_bit[None, :]) != 0, other=0.0)
            w = tl.load(w_ptr + n[None, :] * K + k[:, None], mask=k_ok[:, None] & n_ok[None, :],
                        other=0.0)
            acc = tl.dot(a, w, acc, input_precision="ieee")
    if TRANS:
        acc += bias[:, None]
        tl.store(out_ptr + (n * plane)[:, None] + o_row[None, :], acc,
                 mask=n_ok[:, None] & m_ok[None, :])
    else:
        acc += bias[None, :]
        tl.store(out_ptr + o_row[:, None] + (n * plane)[None, :], acc,
                 mask=m_ok[:, None] & n_ok[None, :])


def _tiles(M: int, cin: int, cout: int, on_cpu: bool) -> tuple[int, int, int, int, int, bool]:
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, TRANS) for M pixels."""
    K = cin * 9
    if on_cpu:
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles. Both
        # orientations still get exercised (the choice below depends on the shape only).
        block_m, warps, stages = min(triton.next_power_of_2(M), 1 << 13), 4, 1
    if M >= 32768 and cout <= 16:
        # Large, narrow: [16 channels, 64 pixels] tiles.
        if on_cpu:
            return block_m, 16, 16, warps, stages, True
        return 64, 16, 16, 2, 1, True
    block_n = max(16, triton.next_power_of_2(cout))
    block_k = 16 if K < 128 else 32
    if on_cpu:
        return block_m, block_n, block_k, warps, stages, False
    block_m = 128
    while block_m > 32 and triton.cdiv(M, block_m) < _MIN_PROGRAMS:
        block_m //= 2
    return block_m, block_n, block_k, 2, (1 if K < 128 else 3), False


def forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
            batch: int, cin: int, cout: int, height: int, width: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (batch, cin, height, width)
    assert tuple(weight.shape) == (cout, cin, 3, 3) and tuple(bias.shape) == (cout,)
    assert x.is_contiguous() and weight.is_contiguous() and bias.is_contiguous()
    out = torch.empty((batch, cout, height, width), device=x.device, dtype=torch.float32)
    if out.numel() == 0:
        return out
    M = batch * height * width
    block_m, block_n, block_k, warps, stages, trans = _tiles(M, cin, cout, x.device.type == "cpu")
    wide = max(x.numel(), out.numel()) + 2 * block_m >= 2**31
    grid = (triton.cdiv(M, block_m), triton.cdiv(cout, block_n))
    _conv3x3_igemm[grid](x, weight, bias, out, M, height, width, cin, cout,
                         BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, TRANS=trans, WIDE=wide,
                         num_warps=warps, num_stages=stages)
    return out
