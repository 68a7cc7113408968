"""Softplus in Triton -- write this.

forward(x, n) must return torch.nn.functional.softplus(x) (beta 1, threshold 20: log(1 + exp(x)),
and x itself where x > 20) as a new float32 tensor of shape [n] (see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    raise NotImplementedError("write a Triton kernel and launch it here")
