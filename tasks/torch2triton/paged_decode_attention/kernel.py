"""Paged-KV decode attention, bfloat16. In Triton -- write this.

forward(q, k_cache, v_cache, block_tables, seq_lens, scale, B, Hq, Hkv, D, block_size, max_blocks) must
return out bfloat16 [B, Hq, D] (see README.md).
"""
import torch
import triton
import triton.language as tl


def forward(q, k_cache, v_cache, block_tables, seq_lens, scale: float, B: int, Hq: int, Hkv: int, D: int, block_size: int, max_blocks: int):
    raise NotImplementedError("write the Triton kernel and launch it here")
