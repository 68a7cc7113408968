"""FP8 (e4m3fn) quantization of bfloat16 activations with one float32 scale per row (absmax / 448)."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols = int(config["rows"]), int(config["cols"])
    # Made on the CPU with the generator so the values do not depend on the device. Row scales vary
    # over two decades, as activations do.
    x = torch.randn((rows, cols), generator=generator, dtype=torch.float32)
    x = x * torch.exp(torch.randn((rows, 1), generator=generator, dtype=torch.float32))
    return [x.to(torch.bfloat16).to(device), rows, cols]


def reference(x, rows, cols):
    # scale = absmax / 448 (e4m3fn's largest finite value) in float32, a zero row's absmax taken as
    # 1e-12; q = x / scale (an IEEE float32 division: the 448 is a tensor, as PyTorch's CUDA kernels
    # turn a division by a Python scalar into a multiplication by its reciprocal), clamped to
    # [-448, 448], rounded to the nearest e4m3fn value, ties to even.
    xf = x.float()
    amax = xf.abs().amax(dim=1).clamp_min(1e-12)
    scale = amax / torch.full_like(amax, 448.0)
    q = (xf / scale[:, None]).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q, scale
