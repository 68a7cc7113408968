"""Rotary position embedding in Triton -- write this.

forward(x, cos, sin, tokens, heads, dim) must return RoPE (rotate-half layout) of x as a new
float16 tensor [tokens, heads, dim] (see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
            tokens: int, heads: int, dim: int) -> torch.Tensor:
    raise NotImplementedError("write a Triton rotary-embedding kernel and launch it here")
