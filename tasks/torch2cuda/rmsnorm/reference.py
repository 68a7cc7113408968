"""RMSNorm with a learned weight over the last dimension of a float32 [rows, cols] tensor."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    eps = float(config["eps"])
    # Made on the CPU with the generator so the values do not depend on the device.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    weight = 1.0 + 0.1 * torch.randn((cols,), generator=generator, dtype=torch.float32)
    return [x.to(device), weight.to(device), rows, cols, eps]


def reference(x, weight, rows, cols, eps):
    mean_sq = x.pow(2).mean(dim=-1, keepdim=True)
    return x * torch.rsqrt(mean_sq + eps) * weight
