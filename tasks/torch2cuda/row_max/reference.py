"""Row maximum: the max over the last dimension of a float32 [rows, cols] tensor (values only)."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device. Centred at
    # -10, so most values (and every max of a short row) are negative: a reduction that starts
    # from 0 instead of -inf, or that reads past the row, is wrong.
    x = 3.0 * torch.randn((rows, cols), generator=generator, dtype=torch.float32) - 10.0
    return [x.to(device), rows, cols]


def reference(x, rows, cols):
    return torch.amax(x, dim=-1)
