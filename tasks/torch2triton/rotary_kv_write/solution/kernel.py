"""Rotary embedding (GPT-NeoX rotate-half) of q and k, and the rotated k and v written into a paged
KV cache at slot_mapping, in Triton; bfloat16, float32 math.

One program per BLOCK_T tokens (one on a GPU; many under the CPU interpreter, where each program
costs Python time). It loads the tokens' cos and sin rows once, rotates every q head ([BLOCK_T,
heads, D/2] tiles of the two halves) into q_out, rotates every k head and stores it straight into the
token's cache slot, and copies v's row there. A padding token (slot -1) stores no k or v.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_store(x_ptr, out_ptr, x_row, out_row, cos, sin, H, D, ok, h, e, half):
    # x_row / out_row: [BLOCK_T, 1, 1] element offsets of head 0; h [1, BLOCK_H, 1], e [1, 1, BLOCK_HALF].
    mask = ok & (h < H) & (e < half)
    x1 = tl.load(x_ptr + x_row + h * D + e, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + x_row + h * D + half + e, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + out_row + h * D + e, (x1 * cos - x2 * sin).to(tl.bfloat16), mask=mask)
    tl.store(out_ptr + out_row + h * D + half + e, (x2 * cos + x1 * sin).to(tl.bfloat16), mask=mask)


@triton.jit
def _rotary_kv_write(q_ptr, k_ptr, v_ptr, cs_ptr, pos_ptr, slot_ptr, qo_ptr, kc_ptr, vc_ptr, tokens, Hq, Hkv, D,
                     BLOCK_T: tl.constexpr, BLOCK_HQ: tl.constexpr, BLOCK_HK: tl.constexpr,
                     BLOCK_HALF: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    t_ok = t < tokens
    pos = tl.load(pos_ptr + t, mask=t_ok, other=0)
    slot = tl.load(slot_ptr + t, mask=t_ok, other=-1)
    half = D // 2
    e = tl.arange(0, BLOCK_HALF)[None, None, :]
    t3 = t.to(tl.int64)[:, None, None]
    ok3 = t_ok[:, None, None]
    cs_row = pos.to(tl.int64)[:, None, None] * D
    cos = tl.load(cs_ptr + cs_row + e, mask=ok3 & (e < half), other=0.0).to(tl.float32)
    sin = tl.load(cs_ptr + cs_row + half + e, mask=ok3 & (e < half), other=0.0).to(tl.float32)
    hq = tl.arange(0, BLOCK_HQ)[None, :, None]
    _rotate_store(q_ptr, qo_ptr, t3 * Hq * D, t3 * Hq * D, cos, sin, Hq, D, ok3, hq, e, half)
    hk = tl.arange(0, BLOCK_HK)[None, :, None]
    slot3 = slot.to(tl.int64)[:, None, None]
    write = ok3 & (slot3 >= 0)
    _rotate_store(k_ptr, kc_ptr, t3 * Hkv * D, slot3 * Hkv * D, cos, sin, Hkv, D, write, hk, e, half)
    d = tl.arange(0, BLOCK_D)[None, None, :]
    vmask = write & (hk < Hkv) & (d < D)
    row = tl.load(v_ptr + t3 * Hkv * D + hk * D + d, mask=vmask)
    tl.store(vc_ptr + slot3 * Hkv * D + hk * D + d, row, mask=vmask)


def forward(q, k, v, cos_sin, positions, slot_mapping, tokens: int, Hq: int, Hkv: int, D: int, block_size: int,
            num_blocks: int):
    q, k, v, cos_sin = q.contiguous(), k.contiguous(), v.contiguous(), cos_sin.contiguous()
    positions, slot_mapping = positions.contiguous(), slot_mapping.contiguous()
    q_out = torch.empty((tokens, Hq, D), device=q.device, dtype=torch.bfloat16)
    k_cache = torch.empty((num_blocks, block_size, Hkv, D), device=q.device, dtype=torch.bfloat16)
    v_cache = torch.empty_like(k_cache)
    if tokens == 0:
        return q_out, k_cache, v_cache
    block_hq, block_hk = triton.next_power_of_2(Hq), triton.next_power_of_2(Hkv)
    block_d = triton.next_power_of_2(D)
    # The interpreter: tiles of about 2^17 q elements per program; a GPU: one token per program.
    block_t = max(1, min(triton.next_power_of_2(tokens), (1 << 17) // (block_hq * block_d))) \
        if q.device.type == "cpu" else 1
    _rotary_kv_write[(triton.cdiv(tokens, block_t),)](
        q, k, v, cos_sin, positions, slot_mapping, q_out, k_cache, v_cache, tokens, Hq, Hkv, D,
        BLOCK_T=block_t, BLOCK_HQ=block_hq, BLOCK_HK=block_hk, BLOCK_HALF=block_d // 2, BLOCK_D=block_d,
        num_warps=4 if block_hq * block_d <= 8192 else 8)
    return q_out, k_cache, v_cache
