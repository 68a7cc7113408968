"""Hardswish, x * relu6(x + 3) / 6: elementwise on a float32 vector of n elements."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    n = int(config["n"])
    # Made on the CPU with the generator so the values do not depend on the device. Spread of 4:
    # both flat parts (x <= -3 gives 0, x >= 3 gives x) and the quadratic middle are exercised.
    x = 4.0 * torch.randn((n,), generator=generator, dtype=torch.float32)
    return [x.to(device), n]


def reference(x, n):
    return torch.nn.functional.hardswish(x)
