"""Top-k (k <= 16) along the last dimension of a float32 [rows, cols] tensor: values and indices."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols, k = int(config["rows"]), int(config["cols"]), int(config["k"])
    # Made on the CPU with the generator so the values do not depend on the device. Continuous
    # values: ties inside a row's top k have probability ~0, so the indices are well defined.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    return [x.to(device), rows, cols, k]


def reference(x, rows, cols, k):
    # Sorted: values[r, 0] is the row's largest; indices are int64 columns into x.
    values, indices = torch.topk(x, k, dim=-1, largest=True, sorted=True)
    return values, indices
