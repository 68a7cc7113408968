"""LayerNorm with weight and bias over the last dimension of a float32 [rows, cols] tensor."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    eps = float(config["eps"])
    # Made on the CPU with the generator so the values do not depend on the device. The offset
    # mean makes a kernel that skips centring wrong.
    x = 0.5 + 2.0 * torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    weight = 1.0 + 0.1 * torch.randn((cols,), generator=generator, dtype=torch.float32)
    bias = 0.1 * torch.randn((cols,), generator=generator, dtype=torch.float32)
    return [x.to(device), weight.to(device), bias.to(device), rows, cols, eps]


def reference(x, weight, bias, rows, cols, eps):
    return torch.nn.functional.layer_norm(x, (cols,), weight, bias, eps)
