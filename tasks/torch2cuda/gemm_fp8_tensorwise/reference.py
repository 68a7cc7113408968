"""FP8 (e4m3fn) GEMM with per-tensor scales, as FP8 checkpoints of Llama-3 are served
(a static scale per weight tensor, a dynamic one per activation tensor):
out = (a.float() @ b.float().T) * scale_a * scale_b, rounded to bfloat16.
"""
import torch


def _quantize(x: torch.Tensor):
    scale = x.abs().amax().clamp_min(1e-12) / 448.0
    return (x / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn), scale.reshape(1).float()


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    m, n, k = int(config["m"]), int(config["n"]), int(config["k"])
    x = torch.randn((m, k), generator=generator) * 3.0
    w = torch.randn((n, k), generator=generator) / k ** 0.5
    a, scale_a = _quantize(x)
    b, scale_b = _quantize(w)
    return [a.to(device), b.to(device), scale_a.to(device), scale_b.to(device), m, n, k]


def reference(a, b, scale_a, scale_b, m, n, k):
    # FP8 values are exact in bfloat16: PyTorch eager without an FP8 GEMM runs a bfloat16 one
    # (float32 accumulation, bfloat16 result) and scales it. On the CPU the same steps run in float32
    # arithmetic (CPU bfloat16 matmuls are emulated and ~100x slower).
    if a.device.type == "cpu":
        y = (a.float() @ b.float().T).to(torch.bfloat16)
    else:
        y = a.to(torch.bfloat16) @ b.to(torch.bfloat16).T
    return (y.float() * (scale_a * scale_b)).to(torch.bfloat16)
