"""Causal varlen prefill attention with grouped-query heads in Triton, flash-style: bfloat16 in and
out, float32 scores, softmax and accumulators.

One program per (BLOCK_M query rows, sequence, query head); a program past its sequence's end
returns at once. It reads its sequence's bounds from cu_seqlens and its KV head (h // (Hq / Hkv)),
then walks the keys up to its last row in BLOCK_N tiles: tl.dot for q k^T, the causal mask, an
online softmax (running max and denominator, the accumulator rescaled when the max grows), then
tl.dot of the bfloat16 probabilities with V. The row blocks with the most tiles go first.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _prefill(q_ptr, k_ptr, v_ptr, out_ptr, cu_ptr, scale, Hq, Hkv, D,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, UPCAST: tl.constexpr):
    block_m = tl.num_programs(0) - 1 - tl.program_id(0)       # heavy (late) row blocks first
    b = tl.program_id(1)
    h = tl.program_id(2)
    start = tl.load(cu_ptr + b)
    seq = tl.load(cu_ptr + b + 1) - start
    if block_m * BLOCK_M >= seq:
        return
    hk = h // (Hq // Hkv)
    rm = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, BLOCK_D)
    d_ok = d < D
    row_ok = rm < seq
    q_rows = ((start + rm).to(tl.int64) * Hq + h) * D
    q = tl.load(q_ptr + q_rows[:, None] + d[None, :], mask=row_ok[:, None] & d_ok[None, :], other=0.0)
    if UPCAST:
        q = q.to(tl.float32)       # the interpreter runs tl.dot as a numpy matmul: slow in bfloat16
    run_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    den = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    hi = tl.minimum(seq, (block_m + 1) * BLOCK_M)             # keys past the last row are masked
    for n0 in range(0, hi, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        kv_rows = ((start + rn).to(tl.int64) * Hkv + hk) * D
        kv_mask = (rn < seq)[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + kv_rows[:, None] + d[None, :], mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + kv_rows[:, None] + d[None, :], mask=kv_mask, other=0.0)
        if UPCAST:
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
    tl.store(out_ptr + q_rows[:, None] + d[None, :], out.to(tl.bfloat16), mask=row_ok[:, None] & d_ok[None, :])


def forward(q, k, v, cu_seqlens, scale: float, B: int, Hq: int, Hkv: int, D: int, max_seqlen: int, total: int):
    q, k, v, cu_seqlens = q.contiguous(), k.contiguous(), v.contiguous(), cu_seqlens.contiguous()
    out = torch.empty((total, Hq, D), device=q.device, dtype=torch.bfloat16)
    if total == 0 or B == 0:
        return out
    block_d = max(16, triton.next_power_of_2(D))
    if q.device.type == "cpu":
        # TRITON_INTERPRET=1 (checks by hand; the task runs on GPUs): every program instance and loop
        # step runs in Python, so a few big tiles.
        block_m = max(16, min(512, triton.next_power_of_2(max_seqlen)))
        block_n = max(16, min(1024, triton.next_power_of_2(max_seqlen)))
        warps, stages, upcast = 4, 1, True
    elif block_d <= 64:
        block_m, block_n, warps, stages, upcast = 128, 64, 4, 3, False
    elif block_d <= 128:
        block_m, block_n, warps, stages, upcast = 128, 64, 8, 2, False
    else:
        block_m, block_n, warps, stages, upcast = 64, 32, 4, 2, False
    grid = (triton.cdiv(max_seqlen, block_m), B, Hq)
    _prefill[grid](q, k, v, out, cu_seqlens, float(scale), Hq, Hkv, D, BLOCK_M=block_m, BLOCK_N=block_n,
                   BLOCK_D=block_d, UPCAST=upcast, num_warps=warps, num_stages=stages)
    return out
