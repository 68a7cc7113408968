"""Row-wise log-softmax of a float32 [rows, cols] tensor (over the last dimension)."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device. Scaled and
    # shifted so that exp(x) overflows float32 in a kernel that skips the max subtraction.
    x = 100.0 + 8.0 * torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    return [x.to(device), rows, cols]


def reference(x, rows, cols):
    return torch.log_softmax(x, dim=-1)
