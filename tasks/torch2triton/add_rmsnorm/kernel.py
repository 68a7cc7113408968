"""Residual add fused with RMSNorm in Triton -- write this.

forward(x, residual, weight, rows, cols, eps) must return (y, h): h = x + residual and
y = h * rsqrt(mean(h**2, dim=-1) + eps) * weight, new float32 tensors of x's shape.
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, rows: int, cols: int, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    raise NotImplementedError("write a Triton kernel and launch it here")
