"""Linear + bias + activation epilogue in Triton, bfloat16: out = act(x @ w.T + b).

A program computes a BLOCK_M x BLOCK_N tile with tl.dot (float32 accumulation; tensor cores on a
GPU), then the epilogue: x @ w.T + b rounded to bfloat16 as PyTorch's GEMM does, the activation
(0 = GELU tanh, 1 = SiLU) in float32, rounded again.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_bias_act(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K, ACT: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, INTERPRETED: tl.constexpr):
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm.to(tl.int64)[:, None] * K + kk[None, :], mask=(rm < M)[:, None] & (kk < K)[None, :], other=0.0)
        b = tl.load(w_ptr + rn.to(tl.int64)[None, :] * K + kk[:, None], mask=(rn < N)[None, :] & (kk < K)[:, None], other=0.0)
        if INTERPRETED:   # the interpreter's tl.dot mishandles bfloat16 (numpy has none): float32 there
            a, b = a.to(tl.float32), b.to(tl.float32)
        acc = tl.dot(a, b, acc)
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    y = (acc + bias[None, :]).to(tl.bfloat16).to(tl.float32)
    if ACT == 0:
        u = 0.7978845608028654 * (y + 0.044715 * y * y * y)
        t = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)             # tanh(u), saturating to +-1
        v = 0.5 * y * (1.0 + t)
    else:
        v = y / (1.0 + tl.exp(-y))
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], v.to(tl.bfloat16), mask=mask)


def forward(x, w, b, m: int, n: int, k: int, act: int):
    x, w, b = x.contiguous(), w.contiguous(), b.contiguous()
    out = torch.empty((m, n), device=x.device, dtype=torch.bfloat16)
    if x.device.type == "cpu":
        bm, bn, bk, warps = 64, 256, 256, 4          # the interpreter: few, large tiles
    else:
        bm = 16 if m <= 16 else 64 if m <= 64 else 128
        bn, bk, warps = 128, 64, 4 if bm <= 64 else 8
    grid = (triton.cdiv(n, bn), triton.cdiv(m, bm))
    _gemm_bias_act[grid](x, w, b, out, m, n, k, ACT=act, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        INTERPRETED=x.device.type == "cpu", num_warps=warps)
    return out
