"""Row-wise softmax over the last dimension of a float32 [rows, cols] tensor."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32) * 3.0
    return [x.to(device), rows, cols]


def reference(x, rows, cols):
    return torch.softmax(x, dim=-1)
