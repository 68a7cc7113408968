"""Residual add fused with RMSNorm, as in pre-norm transformer blocks, over float32 [rows, cols]."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    eps = float(config["eps"])
    # Made on the CPU with the generator so the values do not depend on the device.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    residual = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    weight = 1.0 + 0.1 * torch.randn((cols,), generator=generator, dtype=torch.float32)
    return [x.to(device), residual.to(device), weight.to(device), rows, cols, eps]


def reference(x, residual, weight, rows, cols, eps):
    h = x + residual
    y = h * torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps) * weight
    return y, h
