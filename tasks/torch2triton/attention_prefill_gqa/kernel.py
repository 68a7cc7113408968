"""Causal varlen prefill attention with grouped-query heads, bfloat16. In Triton -- write this.

forward(q, k, v, cu_seqlens, scale, B, Hq, Hkv, D, max_seqlen, total) must return out bfloat16
[total, Hq, D] (see README.md).
"""
import torch
import triton
import triton.language as tl


def forward(q, k, v, cu_seqlens, scale: float, B: int, Hq: int, Hkv: int, D: int, max_seqlen: int, total: int):
    raise NotImplementedError("write the Triton kernel and launch it here")
