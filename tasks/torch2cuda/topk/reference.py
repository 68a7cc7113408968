"""Top-k (k <= 16) along the last dimension of a float32 [rows, cols] tensor: values and indices."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols, k = int(config["rows"]), int(config["cols"]), int(config["k"])
    # Made on the CPU with the generator so the values do not depend on the device. Ties are rare
    # but do occur (65536 rows of 64 float32 normals: about one tied top-2 in ten draws on the H100);
    # canonical() below makes either column of a tie correct.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    return [x.to(device), rows, cols, k]


def reference(x, rows, cols, k):
    # Sorted: values[r, 0] is the row's largest; indices are int64 columns into x.
    values, indices = torch.topk(x, k, dim=-1, largest=True, sorted=True)
    return values, indices


def canonical(outputs, x, rows, cols, k):
    """What the judge compares (docs/task-format.md, `canonical`): equal values are interchangeable,
    and PyTorch does not say which column of a tie it returns, so each index is replaced by the value
    it selects from x. An index out of range, or named twice in its row, selects NaN, which never
    passes. `outputs` may be anything a candidate wrote: never index with it unchecked."""
    values, indices = outputs
    valid = (indices >= 0) & (indices < cols)
    safe = torch.where(valid, indices, torch.zeros_like(indices))
    ordered = safe.sort(dim=-1).values
    repeated = (ordered[..., 1:] == ordered[..., :-1]).any(dim=-1, keepdim=True)
    picked = x.gather(-1, safe)
    picked = torch.where(valid & ~repeated, picked, torch.full_like(picked, float("nan")))
    return values, picked
