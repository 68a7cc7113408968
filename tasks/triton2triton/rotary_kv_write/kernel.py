"""Rotary embedding (GPT-NeoX rotate-half) of q and k, and the rotated k and v written into a paged
KV cache at slot_mapping, in Triton; bfloat16, float32 math -- a straightforward baseline.

forward(q, k, v, cos_sin, positions, slot_mapping, tokens, Hq, Hkv, D, block_size, num_blocks)
returns (q_out, k_cache, v_cache) (see README.md).

What a competent engineer writes first, as vLLM's two ops: one kernel rotates q into q_out, a
second rotates k and stores it, and copies v, into the token's cache slot (a padding token, slot
-1, stores nothing). On a GPU each program owns one head of one token (one warp over its D
elements) and loads that token's cos and sin row itself. (On the CPU interpreter a program takes
many tokens and all heads, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_q(q_ptr, cs_ptr, pos_ptr, qo_ptr, tokens, H, D,
              BLOCK_T: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)[:, None, None]
    h = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)[None, :, None]
    e = tl.arange(0, BLOCK_HALF)[None, None, :]
    half = D // 2
    pos = tl.load(pos_ptr + t, mask=t < tokens, other=0).to(tl.int64)
    cos = tl.load(cs_ptr + pos * D + e, mask=(t < tokens) & (e < half), other=0.0).to(tl.float32)
    sin = tl.load(cs_ptr + pos * D + half + e, mask=(t < tokens) & (e < half), other=0.0).to(tl.float32)
    m = (t < tokens) & (h < H) & (e < half)
    row = (t.to(tl.int64) * H + h) * D
    x1 = tl.load(q_ptr + row + e, mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(q_ptr + row + half + e, mask=m, other=0.0).to(tl.float32)
    tl.store(qo_ptr + row + e, (x1 * cos - x2 * sin).to(tl.bfloat16), mask=m)
    tl.store(qo_ptr + row + half + e, (x2 * cos + x1 * sin).to(tl.bfloat16), mask=m)


@triton.jit
def _rotate_k_write_kv(k_ptr, v_ptr, cs_ptr, pos_ptr, slot_ptr, kc_ptr, vc_ptr, tokens, H, D,
                       BLOCK_T: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)[:, None, None]
    h = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)[None, :, None]
    e = tl.arange(0, BLOCK_HALF)[None, None, :]
    half = D // 2
    slot = tl.load(slot_ptr + t, mask=t < tokens, other=-1)
    write = (t < tokens) & (slot >= 0)
    pos = tl.load(pos_ptr + t, mask=write, other=0).to(tl.int64)
    cos = tl.load(cs_ptr + pos * D + e, mask=write & (e < half), other=0.0).to(tl.float32)
    sin = tl.load(cs_ptr + pos * D + half + e, mask=write & (e < half), other=0.0).to(tl.float32)
    m = write & (h < H) & (e < half)
    src = (t.to(tl.int64) * H + h) * D
    dst = (slot.to(tl.int64) * H + h) * D
    x1 = tl.load(k_ptr + src + e, mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(k_ptr + src + half + e, mask=m, other=0.0).to(tl.float32)
    tl.store(kc_ptr + dst + e, (x1 * cos - x2 * sin).to(tl.bfloat16), mask=m)
    tl.store(kc_ptr + dst + half + e, (x2 * cos + x1 * sin).to(tl.bfloat16), mask=m)
    tl.store(vc_ptr + dst + e, tl.load(v_ptr + src + e, mask=m), mask=m)
    tl.store(vc_ptr + dst + half + e, tl.load(v_ptr + src + half + e, mask=m), mask=m)


def forward(q, k, v, cos_sin, positions, slot_mapping, tokens: int, Hq: int, Hkv: int, D: int, block_size: int,
            num_blocks: int):
    q, k, v, cos_sin = q.contiguous(), k.contiguous(), v.contiguous(), cos_sin.contiguous()
    positions, slot_mapping = positions.contiguous(), slot_mapping.contiguous()
    q_out = torch.empty((tokens, Hq, D), device=q.device, dtype=torch.bfloat16)
    k_cache = torch.empty((num_blocks, block_size, Hkv, D), device=q.device, dtype=torch.bfloat16)
    v_cache = torch.empty_like(k_cache)
    if tokens == 0:
        return q_out, k_cache, v_cache
    block_half = triton.next_power_of_2(D) // 2
    if q.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (many tokens, all heads per program) to keep the interpreter fast.
        bh_q, bh_k = triton.next_power_of_2(Hq), triton.next_power_of_2(Hkv)
        bt_q = max(1, min(triton.next_power_of_2(tokens), (1 << 16) // (bh_q * block_half)))
        bt_k = max(1, min(triton.next_power_of_2(tokens), (1 << 16) // (bh_k * block_half)))
    else:
        bh_q = bh_k = bt_q = bt_k = 1
    _rotate_q[(triton.cdiv(tokens, bt_q), triton.cdiv(Hq, bh_q))](
        q, cos_sin, positions, q_out, tokens, Hq, D, BLOCK_T=bt_q, BLOCK_H=bh_q, BLOCK_HALF=block_half, num_warps=1)
    _rotate_k_write_kv[(triton.cdiv(tokens, bt_k), triton.cdiv(Hkv, bh_k))](
        k, v, cos_sin, positions, slot_mapping, k_cache, v_cache, tokens, Hkv, D,
        BLOCK_T=bt_k, BLOCK_H=bh_k, BLOCK_HALF=block_half, num_warps=1)
    return q_out, k_cache, v_cache
