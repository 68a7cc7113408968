"""Dequantize int8 with one float32 scale per row: out = (q * scale[:, None]) as float16."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device.
    q = torch.randint(-127, 128, (rows, cols), generator=generator, dtype=torch.int8)
    # Per-row absmax scales as a quantizer would make them (absmax / 127 of unit-scale rows).
    scale = (torch.rand((rows,), generator=generator, dtype=torch.float32) * 4.0 + 0.5) / 127.0
    return [q.to(device), scale.to(device), rows, cols]


def reference(q, scale, rows, cols):
    # float32 product, rounded once to float16.
    return (q.float() * scale[:, None]).to(torch.float16)
