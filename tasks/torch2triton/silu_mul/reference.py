"""Scaled SwiGLU activation: the gate and up projections share one [rows, 2*hidden] float16 tensor."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, hidden = int(config["rows"]), int(config["hidden"])
    x = torch.randn(rows, 2 * hidden, generator=generator, dtype=torch.float32) * 2.0
    scale = float(config.get("scale", 0.5))
    return [x.to(torch.float16).to(device), scale]


def reference(x, scale):
    hidden = x.shape[-1] // 2
    gate, up = x[:, :hidden], x[:, hidden:]
    return torch.nn.functional.silu(gate) * up * scale
