"""Scatter-add of rows: out = x.index_add(0, index, src), float32, with repeated indices."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, n, dim = int(config["rows"]), int(config["n"]), int(config["dim"])
    # Made on the CPU with the generator so the values do not depend on the device.
    x = torch.randn((rows, dim), generator=generator, dtype=torch.float32)
    index = torch.randint(0, rows, (n,), generator=generator, dtype=torch.int64)
    src = torch.randn((n, dim), generator=generator, dtype=torch.float32)
    return [x.to(device), index.to(device), src.to(device), rows, n, dim]


def reference(x, index, src, rows, n, dim):
    # out[index[i], :] += src[i, :] for every i, on a copy of x.
    return x.index_add(0, index, src)
