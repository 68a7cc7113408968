"""Causal self-attention (prefill) in Triton -- correct but slow baseline.

forward(q, k, v, batch, heads, seq, dim) returns softmax(mask(q k^T / sqrt(dim))) v (key j
visible to query i when j <= i) as a new float16 tensor [batch, heads, seq, dim], in float32.

One program per query row (on a GPU). The row's scores are materialised in a float32 scratch
matrix in global memory ([batch * heads * seq, seq], as eager PyTorch does), then read back
twice: once for the softmax denominator, once to weight the rows of V. Scores and sums are
broadcast-multiply-and-reduce in float32 (no tl.dot), and K and V are re-read for every query
row. (Under the CPU interpreter, TRITON_INTERPRET=1, programs take ROWS query rows at once and the
products go through tl.dot on float32 tiles (numpy matmuls), only so that the interpreter finishes
in seconds; this says nothing about GPU speed.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _attention_rows_kernel(q_ptr, k_ptr, v_ptr, scores_ptr, out_ptr, seq, scale,
                           DIM: tl.constexpr, ROWS: tl.constexpr, BLOCK_N: tl.constexpr,
                           INTERPRETED: tl.constexpr):
    bh = tl.program_id(1).to(tl.int64)
    rm = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    d = tl.arange(0, DIM)
    row_ok = rm < seq
    base = bh * seq * DIM
    q = tl.load(q_ptr + base + rm[:, None] * DIM + d[None, :], mask=row_ok[:, None], other=0.0).to(tl.float32) * scale
    score_rows = scores_ptr + (bh * seq + rm)[:, None] * seq
    hi = tl.minimum(seq, (tl.program_id(0) + 1) * ROWS)    # keys past the last row are masked

    # Pass 1: scores into the scratch matrix, and the row max.
    run_max = tl.full([ROWS], -float("inf"), tl.float32)
    for n0 in range(0, hi, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + base + rn[:, None] * DIM + d[None, :], mask=(rn < hi)[:, None], other=0.0).to(tl.float32)
        if INTERPRETED:
            s = tl.dot(q, tl.trans(k))
        else:
            s = tl.sum(q[:, None, :] * k[None, :, :], axis=2)
        s = tl.where(rn[None, :] <= rm[:, None], s, -float("inf"))
        tl.store(score_rows + rn[None, :], s, mask=row_ok[:, None] & (rn < hi)[None, :])
        run_max = tl.maximum(run_max, tl.max(s, axis=1))
    tl.debug_barrier()   # the scratch rows are written before any thread reads them back
    run_max = tl.where(row_ok, run_max, 0.0)

    # Pass 2: the softmax denominator.
    den = tl.zeros([ROWS], dtype=tl.float32)
    for n0 in range(0, hi, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        s = tl.load(score_rows + rn[None, :], mask=row_ok[:, None] & (rn < hi)[None, :], other=-float("inf"))
        den += tl.sum(tl.exp(s - run_max[:, None]), axis=1)

    # Pass 3: the probabilities times V.
    acc = tl.zeros([ROWS, DIM], dtype=tl.float32)
    for n0 in range(0, hi, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        s = tl.load(score_rows + rn[None, :], mask=row_ok[:, None] & (rn < hi)[None, :], other=-float("inf"))
        p = tl.exp(s - run_max[:, None])
        v = tl.load(v_ptr + base + rn[:, None] * DIM + d[None, :], mask=(rn < hi)[:, None], other=0.0).to(tl.float32)
        if INTERPRETED:
            acc = tl.dot(p, v, acc)
        else:
            acc += tl.sum(p[:, :, None] * v[None, :, :], axis=1)
    den = tl.where(row_ok, den, 1.0)
    tl.store(out_ptr + base + rm[:, None] * DIM + d[None, :], (acc / den[:, None]).to(tl.float16),
             mask=row_ok[:, None])


def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, batch: int, heads: int, seq: int,
            dim: int) -> torch.Tensor:
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    bh = batch * heads
    if bh == 0 or seq == 0:
        return out
    scores = torch.empty((bh * seq, seq), dtype=torch.float32, device=q.device)
    interpreted = q.device.type == "cpu"
    if interpreted:
        rows, block_n = max(16, min(256, triton.next_power_of_2(seq))), max(16, min(1024, triton.next_power_of_2(seq)))
    else:
        rows, block_n = 1, 64
    grid = (triton.cdiv(seq, rows), bh)
    _attention_rows_kernel[grid](q, k, v, scores, out, seq, dim ** -0.5, DIM=dim, ROWS=rows,
                                 BLOCK_N=block_n, INTERPRETED=interpreted, num_warps=4)
    return out
