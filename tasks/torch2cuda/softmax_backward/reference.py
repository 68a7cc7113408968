"""Softmax backward along the last dim, bfloat16: dx = y * (dy - sum(y * dy, -1)), math in float32.

What autograd runs for torch.softmax in training: over attention probabilities (rows = batch *
heads * queries, cols = keys) and over an LM head's vocabulary (cross-entropy's softmax).
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # y is a real softmax (peaked rows: logits of spread 3), dy a signed gradient.
    y = torch.softmax(3.0 * torch.randn((rows, cols), generator=generator), dim=-1)
    dy = torch.randn((rows, cols), generator=generator)
    return [y.to(torch.bfloat16).to(device), dy.to(torch.bfloat16).to(device), rows, cols]


def reference(y, dy, rows, cols):
    yf, dyf = y.float(), dy.float()
    return (yf * (dyf - (yf * dyf).sum(dim=-1, keepdim=True))).to(torch.bfloat16)
