"""Sigmoid in Triton -- write this.

forward(x, n) must return y with y[i] = 1 / (1 + exp(-x)), as a new float32 tensor of x's shape
(see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    raise NotImplementedError("write a Triton kernel and launch it here")
