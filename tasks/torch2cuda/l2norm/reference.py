"""Row-wise L2 normalisation of a float32 [rows, cols] tensor (F.normalize(x, dim=-1))."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    eps = float(config["eps"])
    # Made on the CPU with the generator so the values do not depend on the device.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    return [x.to(device), rows, cols, eps]


def reference(x, rows, cols, eps):
    return torch.nn.functional.normalize(x, p=2.0, dim=-1, eps=eps)
