"""Matrix transpose in Triton -- write this.

forward(x, rows, cols) must return x.t().contiguous(), a new float32 tensor of shape [cols, rows]
(see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    raise NotImplementedError("write a Triton transpose kernel and launch it here")
