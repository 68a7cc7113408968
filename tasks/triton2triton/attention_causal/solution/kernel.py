"""Causal self-attention (prefill) in Triton, flash-style: float16 in and out, float32 scores,
softmax and accumulators, dim 64.

Eager PyTorch materialises the seq x seq score matrix in float32 (and the probabilities, and the
mask) and walks it several times; here it never leaves the chip. One program per (sequence,
head, BLOCK_M query rows) walks the keys up to its last row in BLOCK_N tiles: tensor-core
tl.dot for q k^T, the causal mask, an online softmax (running max and denominator, the
accumulator rescaled when the max grows), then tl.dot of the float16 probabilities with V.
Tiles past the block's last row are skipped, and the programs with the most tiles go first.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _flash_causal_kernel(q_ptr, k_ptr, v_ptr, out_ptr, seq, scale,
                         DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         UPCAST: tl.constexpr):
    block_m = tl.num_programs(0) - 1 - tl.program_id(0)   # heavy (late) row blocks first
    bh = tl.program_id(1).to(tl.int64)
    rm = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, DIM)
    base = bh * seq * DIM
    row_ok = rm < seq
    q = tl.load(q_ptr + base + rm[:, None] * DIM + d[None, :], mask=row_ok[:, None], other=0.0)
    if UPCAST:
        q = q.to(tl.float32)
    run_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    den = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, DIM], dtype=tl.float32)
    hi = tl.minimum(seq, (block_m + 1) * BLOCK_M)           # keys past the last row are masked
    for n0 in range(0, hi, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        key_ok = rn < seq
        k = tl.load(k_ptr + base + rn[:, None] * DIM + d[None, :], mask=key_ok[:, None], other=0.0)
        v = tl.load(v_ptr + base + rn[:, None] * DIM + d[None, :], mask=key_ok[:, None], other=0.0)
        if UPCAST:
            # Interpreter only: it runs tl.dot as a numpy matmul, which is very slow for float16.
            k = k.to(tl.float32)
            v = v.to(tl.float32)
        scores = tl.dot(q, tl.trans(k)) * scale
        scores = tl.where(rn[None, :] <= rm[:, None], scores, -float("inf"))
        # Key 0 is in the first tile and visible to every row, so new_max is finite from then on.
        new_max = tl.maximum(run_max, tl.max(scores, axis=1))
        corr = tl.exp(run_max - new_max)
        p = tl.exp(scores - new_max[:, None])
        den = den * corr + tl.sum(p, axis=1)
        acc = acc * corr[:, None] + tl.dot(p.to(v.dtype), v)
        run_max = new_max
    out = acc / den[:, None]
    tl.store(out_ptr + base + rm[:, None] * DIM + d[None, :], out.to(tl.float16), mask=row_ok[:, None])


def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, batch: int, heads: int, seq: int,
            dim: int) -> torch.Tensor:
    assert q.dtype == k.dtype == v.dtype == torch.float16 and dim == 64
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    bh = batch * heads
    if bh == 0 or seq == 0:
        return out
    if q.device.type == "cpu":
        # TRITON_INTERPRET=1: every program instance runs in Python, so use a few big tiles.
        block_m, block_n = max(16, min(512, triton.next_power_of_2(seq))), max(16, min(1024, triton.next_power_of_2(seq)))
        warps, stages, upcast = 4, 1, True
    else:
        block_m, block_n, warps, stages, upcast = 128, 64, 4, 3, False
    grid = (triton.cdiv(seq, block_m), bh)
    _flash_causal_kernel[grid](q, k, v, out, seq, dim ** -0.5, DIM=dim, BLOCK_M=block_m, BLOCK_N=block_n,
                               UPCAST=upcast, num_warps=warps, num_stages=stages)
    return out
