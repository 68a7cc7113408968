"""Symmetric int8 quantization with one float32 scale per row (absmax / 127)."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device. Row scales
    # vary over two decades, as activations do.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    x = x * torch.exp(torch.randn((rows, 1), generator=generator, dtype=torch.float32))
    return [x.to(torch.float16).to(device), rows, cols]


def reference(x, rows, cols):
    # scale = absmax / 127 in float32 (a zero row gets 1e-8 / 127); q = round-half-even of
    # x / scale (an IEEE float32 division), clamped to [-127, 127]. The 127 is a tensor: PyTorch's
    # CUDA kernels divide by a Python scalar as a multiplication by its reciprocal, which is 1 ulp
    # off IEEE division for some rows, and that moves q by one at rounding boundaries.
    xf = x.float()
    amax = xf.abs().amax(dim=1).clamp_min(1e-8)
    scale = amax / torch.full_like(amax, 127.0)
    q = torch.round(xf / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale
