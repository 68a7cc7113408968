"""Per-row cross-entropy of float32 logits [rows, cols] against int64 class targets [rows]."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device. Shifted so
    # that exp(logits) overflows float32 in a kernel that skips the max subtraction.
    logits = 90.0 + 4.0 * torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    targets = torch.randint(0, cols, (rows,), generator=generator, dtype=torch.int64)
    return [logits.to(device), targets.to(device), rows, cols]


def reference(logits, targets, rows, cols):
    return torch.nn.functional.cross_entropy(logits, targets, reduction="none")
