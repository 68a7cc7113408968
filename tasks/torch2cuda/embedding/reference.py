"""Embedding lookup: gather rows of a float16 [vocab, dim] table by int64 token ids."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    vocab, dim, tokens = int(config["vocab"]), int(config["dim"]), int(config["tokens"])
    # Made on the CPU with the generator so the values do not depend on the device.
    weight = torch.randn((vocab, dim), generator=generator, dtype=torch.float32).to(torch.float16)
    indices = torch.randint(0, vocab, (tokens,), generator=generator, dtype=torch.int64)
    return [weight.to(device), indices.to(device), tokens, dim]


def reference(weight, indices, tokens, dim):
    return weight.index_select(0, indices)
