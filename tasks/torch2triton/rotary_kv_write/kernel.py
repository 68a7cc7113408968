"""Rotary embedding of q and k + KV-cache write, bfloat16. In Triton -- write this.

forward(q, k, v, cos_sin, positions, slot_mapping, tokens, Hq, Hkv, D, block_size, num_blocks) must
return (q_out, k_cache, v_cache): bfloat16 [tokens, Hq, D] and [num_blocks, block_size, Hkv, D] twice
(see README.md).
"""
import torch
import triton
import triton.language as tl


def forward(q, k, v, cos_sin, positions, slot_mapping, tokens: int, Hq: int, Hkv: int, D: int, block_size: int,
            num_blocks: int):
    raise NotImplementedError("write the Triton kernel and launch it here")
