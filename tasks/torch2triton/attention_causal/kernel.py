"""Causal self-attention (prefill) in Triton -- write this.

forward(q, k, v, batch, heads, seq, dim) must return softmax(mask(q k^T / sqrt(dim))) v (key j
visible to query i when j <= i) as a new float16 tensor [batch, heads, seq, dim] (q, k, v float16
[batch, heads, seq, dim], dim 64), computed in float32 (see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, batch: int, heads: int, seq: int,
            dim: int) -> torch.Tensor:
    raise NotImplementedError("write a Triton kernel and launch it here")
