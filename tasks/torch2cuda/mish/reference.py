"""Mish, x * tanh(softplus(x)): elementwise on a float32 vector of n elements."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    n = int(config["n"])
    # Made on the CPU with the generator so the values do not depend on the device. Wide enough
    # that both tails (x * exp(x) for x << 0, x for x >> 0) are exercised.
    x = 5.0 * torch.randn((n,), generator=generator, dtype=torch.float32)
    return [x.to(device), n]


def reference(x, n):
    return torch.nn.functional.mish(x)
