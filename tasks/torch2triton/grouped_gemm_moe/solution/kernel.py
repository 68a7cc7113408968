"""Grouped GEMM for mixture-of-experts in Triton, bfloat16: out[s:t] = x[s:t] @ w[e].T per expert.

One launch for all experts, no host read of the offsets: the grid's second axis covers
ceil(T / BLOCK_M) + E row tiles (an upper bound on the sum over experts of ceil(rows_e / BLOCK_M));
each program walks the offsets to find which expert's tile it is; a program past the last tile
masks everything out. tl.dot accumulates in float32.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _grouped_gemm(x_ptr, w_ptr, off_ptr, out_ptr, E, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, INTERPRETED: tl.constexpr):
    tile = tl.program_id(1).to(tl.int64)
    expert = tl.zeros((), tl.int64) - 1
    m_start = tl.zeros((), tl.int64)
    m_end = tl.zeros((), tl.int64)
    for e in range(0, E):
        s = tl.load(off_ptr + e)
        t = tl.load(off_ptr + e + 1)
        tiles = (t - s + BLOCK_M - 1) // BLOCK_M
        hit = (tile >= 0) & (tile < tiles)
        expert = tl.where(hit, e, expert)
        m_start = tl.where(hit, s + tile * BLOCK_M, m_start)
        m_end = tl.where(hit, t, m_end)
        tile -= tiles
    m_end = tl.where(expert >= 0, m_end, m_start)      # no tile: nothing to load or store
    expert = tl.maximum(expert, 0)
    rm = m_start + tl.arange(0, BLOCK_M)
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    w_base = w_ptr + expert * N * K
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm < m_end)[:, None] & (kk < K)[None, :], other=0.0)
        b = tl.load(w_base + rn.to(tl.int64)[None, :] * K + kk[:, None], mask=(rn < N)[None, :] & (kk < K)[:, None], other=0.0)
        if INTERPRETED:   # the interpreter's tl.dot mishandles bfloat16 (numpy has none): float32 there
            a, b = a.to(tl.float32), b.to(tl.float32)
        acc = tl.dot(a, b, acc)
    mask = (rm < m_end)[:, None] & (rn < N)[None, :]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=mask)


def forward(x, w, offsets, T: int, E: int, n: int, k: int):
    x, w, offsets = x.contiguous(), w.contiguous(), offsets.contiguous()
    out = torch.empty((T, n), device=x.device, dtype=torch.bfloat16)
    if x.device.type == "cpu":
        bm, bn, bk, warps = 64, 256, 256, 4           # the interpreter: few, large tiles
    else:
        bm, bn, bk, warps = 64, 128, 64, 4
    grid = (triton.cdiv(n, bn), triton.cdiv(T, bm) + E)
    _grouped_gemm[grid](x, w, offsets, out, E, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        INTERPRETED=x.device.type == "cpu", num_warps=warps)
    return out
