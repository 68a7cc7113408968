"""Row maximum in Triton -- write this.

forward(x, rows, cols) must return torch.amax(x, dim=-1), the max of each row, as a new float32
tensor of shape [rows] (see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    raise NotImplementedError("write a Triton kernel and launch it here")
