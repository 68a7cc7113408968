"""Row-wise L2 normalisation in Triton -- write this.

forward(x, rows, cols, eps) must return x / max(||x||_2 over each row, eps), i.e.
torch.nn.functional.normalize(x, dim=-1, eps=eps), as a new float32 tensor of x's shape.
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, rows: int, cols: int, eps: float) -> torch.Tensor:
    raise NotImplementedError("write a Triton kernel and launch it here")
