"""MoE router in Triton -- write this.

forward(logits, tokens, experts, k) must return (weights, ids): the top-k of
torch.softmax(logits, dim=-1) per token, sorted descending, with the weights renormalised to sum
to 1 over the chosen k (float32 [tokens, k]) and the expert ids (int64 [tokens, k]). See
reference.py and README.md.
"""
import torch
import triton
import triton.language as tl


def forward(logits: torch.Tensor, tokens: int, experts: int, k: int):
    raise NotImplementedError("write a Triton kernel and launch it here")
