"""Paged-KV decode attention in Triton, bfloat16, float32 online softmax.

One program per (sequence, query head). Tokens go BLOCK_T at a time: their pages come from the
block table, the K tile [BLOCK_T, D] gives the scores, the running max / sum / accumulator are
rescaled (online softmax) and the V tile is folded in. Tokens past seq_lens are masked, never read.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _paged_decode(q_ptr, k_ptr, v_ptr, tab_ptr, len_ptr, out_ptr, scale, Hq, Hkv, D, BS, MAXB,
                  BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    b = pid // Hq
    h = pid % Hq
    hk = h // (Hq // Hkv)
    seq_len = tl.load(len_ptr + b)
    d = tl.arange(0, BLOCK_D)
    d_ok = d < D
    q = tl.load(q_ptr + (b * Hq + h).to(tl.int64) * D + d, mask=d_ok, other=0.0).to(tl.float32)
    m = tl.full((), float("-inf"), tl.float32)
    l = tl.zeros((), tl.float32)
    acc = tl.zeros([BLOCK_D], tl.float32)
    for c in range(0, seq_len, BLOCK_T):
        t = c + tl.arange(0, BLOCK_T)
        t_ok = t < seq_len
        page = tl.load(tab_ptr + b.to(tl.int64) * MAXB + t // BS, mask=t_ok, other=0)
        row = ((page.to(tl.int64) * BS + t % BS) * Hkv + hk) * D
        mask = t_ok[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + row[:, None] + d[None, :], mask=mask, other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * scale
        s = tl.where(t_ok, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=0))
        factor = tl.exp(m - m_new)
        p = tl.exp(s - m_new)
        v = tl.load(v_ptr + row[:, None] + d[None, :], mask=mask, other=0.0).to(tl.float32)
        acc = acc * factor + tl.sum(p[:, None] * v, axis=0)
        l = l * factor + tl.sum(p, axis=0)
        m = m_new
    tl.store(out_ptr + (b * Hq + h).to(tl.int64) * D + d, (acc / l).to(tl.bfloat16), mask=d_ok)


def forward(q, k_cache, v_cache, block_tables, seq_lens, scale: float, B: int, Hq: int, Hkv: int, D: int,
            block_size: int, max_blocks: int):
    q, k_cache, v_cache = q.contiguous(), k_cache.contiguous(), v_cache.contiguous()
    block_tables, seq_lens = block_tables.contiguous(), seq_lens.contiguous()
    out = torch.empty((B, Hq, D), device=q.device, dtype=torch.bfloat16)
    block_t = 256 if q.device.type == "cpu" else 64      # the interpreter: fewer, larger tiles
    _paged_decode[(B * Hq,)](q, k_cache, v_cache, block_tables, seq_lens, out, float(scale), Hq, Hkv, D,
                             block_size, max_blocks, BLOCK_T=block_t, BLOCK_D=triton.next_power_of_2(D), num_warps=4)
    return out
