"""Attention for one decoding step: one query token per sequence over a KV cache.

q [batch, heads, dim], k and v [batch, heads, seq, dim], all float16; out [batch, heads, dim]
float16 = softmax(q k^T / sqrt(dim)) v with the scores, the softmax and the weighted sum in
float32."""
import math

import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    batch, heads, seq, dim = (int(config[key]) for key in ("batch", "heads", "seq", "dim"))
    # Made on the CPU with the generator so the values do not depend on the device. q is scaled
    # so the scores have a standard deviation of 2: the softmax is neither flat nor one-hot.
    q = 2.0 * torch.randn((batch, heads, dim), generator=generator, dtype=torch.float32)
    k = torch.randn((batch, heads, seq, dim), generator=generator, dtype=torch.float32)
    v = torch.randn((batch, heads, seq, dim), generator=generator, dtype=torch.float32)
    half = torch.float16
    return [q.to(half).to(device), k.to(half).to(device), v.to(half).to(device), batch, heads, seq, dim]


def reference(q, k, v, batch, heads, seq, dim):
    scores = torch.einsum("bhd,bhsd->bhs", q.float(), k.float()) / math.sqrt(dim)
    probs = torch.softmax(scores, dim=-1)
    return torch.einsum("bhs,bhsd->bhd", probs, v.float()).to(torch.float16)
