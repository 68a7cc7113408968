"""Attention for one decoding step in Triton (split-KV "flash decoding"), float16 in and out,
float32 scores, softmax and sums.

Eager PyTorch upcasts the whole KV cache to float32 and reads it again in two batched products;
here K and V are read once, as float16. The keys of each (sequence, head) are cut into `splits`
chunks so that there are enough programs to fill the GPU even for a few long sequences: each
program walks its chunk in BLOCK_S-key tiles with an online softmax (running max, denominator
and weighted sum of V rows, rescaled when the max grows) and writes those three partials; a
second kernel merges the chunks of each (sequence, head) and rounds to float16 once. Under the
interpreter (TRITON_INTERPRET=1, device cpu), where every program instance costs milliseconds of
Python, one program takes BLOCK_H (sequence, head) pairs at once through 3-D tiles instead.
"""
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _decode_partial_kernel(q_ptr, k_ptr, v_ptr, max_ptr, den_ptr, acc_ptr, seq, chunk, splits, scale,
                           DIM: tl.constexpr, BLOCK_S: tl.constexpr):
    bh = tl.program_id(0).to(tl.int64)
    split = tl.program_id(1)
    d = tl.arange(0, DIM)
    q = tl.load(q_ptr + bh * DIM + d).to(tl.float32) * scale
    start = split * chunk
    end = tl.minimum(start + chunk, seq)
    k_base = k_ptr + bh * seq * DIM
    v_base = v_ptr + bh * seq * DIM
    run_max = -float("inf")
    den = 0.0
    acc = tl.zeros([DIM], dtype=tl.float32)
    for s0 in range(start, end, BLOCK_S):   # every tile holds at least one real key
        offs = s0 + tl.arange(0, BLOCK_S)
        ok = offs < end
        rows = offs.to(tl.int64)[:, None] * DIM + d[None, :]
        k = tl.load(k_base + rows, mask=ok[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_base + rows, mask=ok[:, None], other=0.0).to(tl.float32)
        scores = tl.where(ok, tl.sum(k * q[None, :], axis=1), -float("inf"))
        new_max = tl.maximum(run_max, tl.max(scores, axis=0))
        corr = tl.exp(run_max - new_max)
        p = tl.exp(scores - new_max)
        den = den * corr + tl.sum(p, axis=0)
        acc = acc * corr + tl.sum(p[:, None] * v, axis=0)
        run_max = new_max
    part = bh * splits + split
    tl.store(max_ptr + part, run_max)
    tl.store(den_ptr + part, den)
    tl.store(acc_ptr + part * DIM + d, acc)


@triton.jit
def _decode_merge_kernel(max_ptr, den_ptr, acc_ptr, out_ptr, splits,
                         DIM: tl.constexpr, BLOCK_SPLITS: tl.constexpr):
    bh = tl.program_id(0).to(tl.int64)
    i = tl.arange(0, BLOCK_SPLITS)
    d = tl.arange(0, DIM)
    ok = i < splits
    part = bh * splits + i
    m = tl.load(max_ptr + part, mask=ok, other=-float("inf"))
    den = tl.load(den_ptr + part, mask=ok, other=0.0)
    acc = tl.load(acc_ptr + part[:, None] * DIM + d[None, :], mask=ok[:, None], other=0.0)
    w = tl.exp(m - tl.max(m, axis=0))          # 0 for the padding; every real split has keys
    total = tl.sum(w[:, None] * acc, axis=0) / tl.sum(w * den, axis=0)
    tl.store(out_ptr + bh * DIM + d, total.to(tl.float16))


@triton.jit
def _decode_many_kernel(q_ptr, k_ptr, v_ptr, out_ptr, bh_total, seq, scale,
                        DIM: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_S: tl.constexpr):
    # Interpreter path: BLOCK_H (sequence, head) pairs per program, all of seq in BLOCK_S tiles.
    bh = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H)
    d = tl.arange(0, DIM)
    bh_ok = bh < bh_total
    q = tl.load(q_ptr + bh[:, None] * DIM + d[None, :], mask=bh_ok[:, None], other=0.0).to(tl.float32) * scale
    run_max = tl.full([BLOCK_H], -float("inf"), tl.float32)
    den = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, DIM], dtype=tl.float32)
    for s0 in range(0, seq, BLOCK_S):
        offs = s0 + tl.arange(0, BLOCK_S)
        ok = offs < seq
        rows = (bh[:, None, None] * seq + offs[None, :, None]) * DIM + d[None, None, :]
        mask = bh_ok[:, None, None] & ok[None, :, None]
        k = tl.load(k_ptr + rows, mask=mask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + rows, mask=mask, other=0.0).to(tl.float32)
        scores = tl.where(ok[None, :], tl.sum(k * q[:, None, :], axis=2), -float("inf"))
        new_max = tl.maximum(run_max, tl.max(scores, axis=1))
        corr = tl.exp(run_max - new_max)
        p = tl.exp(scores - new_max[:, None])
        den = den * corr + tl.sum(p, axis=1)
        acc = acc * corr[:, None] + tl.sum(p[:, :, None] * v, axis=1)
        run_max = new_max
    tl.store(out_ptr + bh[:, None] * DIM + d[None, :], (acc / den[:, None]).to(tl.float16), mask=bh_ok[:, None])


@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, batch: int, heads: int, seq: int,
            dim: int) -> torch.Tensor:
    assert q.dtype == k.dtype == v.dtype == torch.float16 and dim in (64, 128) and seq >= 1
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    bh = batch * heads
    out = torch.empty((batch, heads, dim), dtype=torch.float16, device=q.device)
    if bh == 0:
        return out
    if q.device.type == "cpu":
        block_s = min(256, triton.next_power_of_2(seq))
        block_h = max(1, min(64, (1 << 20) // (block_s * dim), triton.next_power_of_2(bh)))
        _decode_many_kernel[(triton.cdiv(bh, block_h),)](q, k, v, out, bh, seq, dim ** -0.5, DIM=dim,
                                                         BLOCK_H=block_h, BLOCK_S=block_s)
        return out
    block_s = 64
    # Enough programs for about two per SM, but chunks of at least 256 keys.
    splits = max(1, min(triton.cdiv(2 * _sm_count(q.device.index or 0), bh), triton.cdiv(seq, 256)))
    chunk = triton.cdiv(triton.cdiv(seq, splits), block_s) * block_s
    splits = triton.cdiv(seq, chunk)         # no empty chunk
    run_max = torch.empty((bh, splits), dtype=torch.float32, device=q.device)
    den = torch.empty((bh, splits), dtype=torch.float32, device=q.device)
    acc = torch.empty((bh, splits, dim), dtype=torch.float32, device=q.device)
    _decode_partial_kernel[(bh, splits)](q, k, v, run_max, den, acc, seq, chunk, splits, dim ** -0.5,
                                         DIM=dim, BLOCK_S=block_s, num_warps=4)
    _decode_merge_kernel[(bh,)](run_max, den, acc, out, splits, DIM=dim,
                                BLOCK_SPLITS=triton.next_power_of_2(splits), num_warps=4)
    return out
