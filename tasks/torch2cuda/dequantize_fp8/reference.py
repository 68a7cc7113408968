"""Dequantize FP8 (e4m3fn) with one float32 scale per row: out = (q * scale[:, None]) as bfloat16."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device. Every e4m3fn
    # value occurs (random bytes), NaN's two codes (0x7f, 0xff) moved to the largest finite ones.
    codes = torch.randint(0, 256, (rows, cols), generator=generator, dtype=torch.int16)
    codes = torch.where(codes & 0x7F == 0x7F, codes - 1, codes).to(torch.uint8)
    # Per-row absmax scales as a quantizer would make them (absmax / 448 of unit-scale rows).
    scale = (torch.rand((rows,), generator=generator, dtype=torch.float32) * 4.0 + 0.5) / 448.0
    return [codes.view(torch.float8_e4m3fn).to(device), scale.to(device), rows, cols]


def reference(q, scale, rows, cols):
    # The e4m3fn value is exact in float32; one float32 product, rounded once to bfloat16.
    return (q.float() * scale[:, None]).to(torch.bfloat16)
