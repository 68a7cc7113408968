"""Top-k / top-p filtering of float32 logits and inverse-CDF sampling. In Triton -- write this.

forward(logits, top_k, top_p, u, batch, vocab) must return the sampled token of each row, int64
[batch]: keep the row's top_k logits (ties: lower id first), then the shortest prefix of them, by
logit, whose renormalised mass reaches top_p; return the first kept token by id whose cumulative
mass exceeds u * (kept mass), or the last kept one if none does (see README.md).
"""
import torch
import triton
import triton.language as tl


def forward(logits: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor, u: torch.Tensor, batch: int, vocab: int):
    raise NotImplementedError("write the Triton kernel and launch it here")
