"""Fused RMSNorm + per-token dynamic FP8 (e4m3fn) quantisation, as serving stacks run before an FP8 GEMM.

The input layer norm of a Llama-style block feeding an FP8 linear layer (vLLM's
rms_norm_dynamic_per_token_quant, TensorRT-LLM's fused norm-quant): y = RMSNorm(x) * w in float32,
then one scale per token, scale = max|y| / 448, and q = y / scale rounded to e4m3fn.
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols, eps = int(config["rows"]), int(config["cols"]), float(config["eps"])
    # Made on the CPU with the generator. Token scales vary over two decades and a few hidden channels
    # carry 20x outliers, as LLM activations do (the reason per-token scales exist).
    x = torch.randn((rows, cols), generator=generator) * torch.exp(torch.randn((rows, 1), generator=generator))
    outliers = torch.randperm(cols, generator=generator)[: max(1, cols // 512)]
    x[:, outliers] *= 20.0
    w = 1.0 + 0.1 * torch.randn((cols,), generator=generator)
    return [x.to(torch.bfloat16).to(device), w.to(torch.bfloat16).to(device), rows, cols, eps]


def reference(x, w, rows, cols, eps):
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
    y = xf * rstd * w.float()
    amax = y.abs().amax(dim=-1).clamp_min(1e-12)
    scale = amax / torch.full_like(amax, 448.0)          # an IEEE division (not a reciprocal multiply)
    q = (y / scale[:, None]).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q, scale
