"""Causal self-attention (prefill): q, k, v [batch, heads, seq, dim] float16, out float16 =
softmax(mask(q k^T / sqrt(dim))) v, key j visible to query i when j <= i; float32 scores,
softmax and sums."""
import math

import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    batch, heads, seq, dim = (int(config[key]) for key in ("batch", "heads", "seq", "dim"))
    # Made on the CPU with the generator so the values do not depend on the device. q is scaled
    # so the scores have a standard deviation of 2: the softmax is neither flat nor one-hot.
    shape = (batch, heads, seq, dim)
    q = 2.0 * torch.randn(shape, generator=generator, dtype=torch.float32)
    k = torch.randn(shape, generator=generator, dtype=torch.float32)
    v = torch.randn(shape, generator=generator, dtype=torch.float32)
    half = torch.float16
    return [q.to(half).to(device), k.to(half).to(device), v.to(half).to(device), batch, heads, seq, dim]


def reference(q, k, v, batch, heads, seq, dim):
    scores = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(dim)
    visible = torch.ones((seq, seq), dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~visible, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v.float()).to(torch.float16)
