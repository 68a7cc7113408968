"""RMSNorm over the last dimension of a 2-D float32 tensor, with a per-column weight."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    x = torch.randn(rows, cols, generator=generator, dtype=torch.float32)
    weight = 1.0 + 0.1 * torch.randn(cols, generator=generator, dtype=torch.float32)
    eps = float(config.get("eps", 1e-6))
    return [x.to(device), weight.to(device), eps]


def reference(x, weight, eps):
    rstd = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
    return x * rstd * weight
