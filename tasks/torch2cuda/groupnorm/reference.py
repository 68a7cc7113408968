"""GroupNorm with per-channel weight and bias of a float32 [batch, channels, hw] tensor."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    batch, channels, hw = int(config["batch"]), int(config["channels"]), int(config["hw"])
    groups, eps = int(config["groups"]), float(config["eps"])
    assert channels % groups == 0, "channels must be a multiple of groups"
    # Made on the CPU with the generator so the values do not depend on the device. The offset
    # mean makes a kernel that skips centring wrong.
    x = 0.5 + 2.0 * torch.randn((batch, channels, hw), generator=generator, dtype=torch.float32)
    weight = 1.0 + 0.1 * torch.randn((channels,), generator=generator, dtype=torch.float32)
    bias = 0.1 * torch.randn((channels,), generator=generator, dtype=torch.float32)
    return [x.to(device), weight.to(device), bias.to(device), batch, channels, hw, groups, eps]


def reference(x, weight, bias, batch, channels, hw, groups, eps):
    return torch.nn.functional.group_norm(x, groups, weight, bias, eps)
