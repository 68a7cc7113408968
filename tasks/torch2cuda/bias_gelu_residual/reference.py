"""Bias add + GELU (tanh approximation) + residual add, as in a transformer MLP epilogue.

Inputs are bfloat16; the math is done in float32 and the result rounded once to bfloat16.
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    bias = torch.randn((cols,), generator=generator, dtype=torch.float32) * 0.5
    residual = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    bf16 = torch.bfloat16
    return [x.to(bf16).to(device), bias.to(bf16).to(device), residual.to(bf16).to(device), rows, cols]


def reference(x, bias, residual, rows, cols):
    h = x.float() + bias.float()                       # bias broadcast over rows
    y = torch.nn.functional.gelu(h, approximate="tanh") + residual.float()
    return y.to(torch.bfloat16)
