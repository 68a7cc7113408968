"""Grouped GEMM for mixture-of-experts, bfloat16. In Triton -- write this.

forward(x, w, offsets, T, E, n, k) must return out bfloat16 [T, n] with out[s:t] = x[s:t] @ w[e].T for
each expert's rows s:t = offsets[e]:offsets[e+1] (see README.md).
"""
import torch
import triton
import triton.language as tl


def forward(x, w, offsets, T: int, E: int, n: int, k: int):
    raise NotImplementedError("write the Triton kernel and launch it here")
