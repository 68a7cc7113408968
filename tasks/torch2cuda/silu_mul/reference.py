"""Scaled SwiGLU activation: the gate and up projections share one [rows, 2*hidden] float16 tensor.

The same inputs and semantics as torch2triton/silu_mul's reference (whose configs this task
shares), with the sizes a native kernel needs passed as trailing ints before the scale.
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, hidden = int(config["rows"]), int(config["hidden"])
    x = torch.randn(rows, 2 * hidden, generator=generator, dtype=torch.float32) * 2.0
    scale = float(config.get("scale", 0.5))
    return [x.to(torch.float16).to(device), rows, hidden, scale]


def reference(x, rows, hidden, scale):
    gate, up = x[:, :hidden], x[:, hidden:]
    return torch.nn.functional.silu(gate) * up * scale
