"""Mean over the last dimension of a float32 [rows, cols] tensor: one value per row."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device. Offset so
    # that the means are away from zero and the check is relative.
    x = 1.0 + torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    return [x.to(device), rows, cols]


def reference(x, rows, cols):
    return x.mean(dim=-1)
