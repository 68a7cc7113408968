"""LayerNorm in Triton -- write this.

forward(x, weight, bias, rows, cols, eps) must return layer_norm(x, (cols,), weight, bias, eps)
as a new float32 tensor of x's shape (see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, rows: int, cols: int, eps: float) -> torch.Tensor:
    raise NotImplementedError("write a Triton LayerNorm kernel and launch it here")
