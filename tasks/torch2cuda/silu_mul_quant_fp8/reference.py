"""SwiGLU activation fused with per-token dynamic FP8 (e4m3fn) quantisation, as serving stacks run
between an FFN's gate/up GEMM and its FP8 down GEMM.

vLLM's silu_and_mul followed by its dynamic per-token FP8 quant (fused in its act_and_mul_quant
kernels): x holds [gate | up] per token; y = silu(gate) * up in float32, one scale per token,
scale = max|y| / 448, and q = y / scale rounded to e4m3fn.
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    tokens, inter = int(config["tokens"]), int(config["inter"])
    # Made on the CPU with the generator. Gate pre-activations span silu's negative tail and its
    # linear part; up projections carry per-token magnitudes over two decades and a few outlier
    # channels (why per-token scales exist).
    gate = 2.0 * torch.randn((tokens, inter), generator=generator)
    up = torch.randn((tokens, inter), generator=generator) * torch.exp(torch.randn((tokens, 1), generator=generator))
    outliers = torch.randperm(inter, generator=generator)[: max(1, inter // 512)]
    up[:, outliers] *= 20.0
    x = torch.cat([gate, up], dim=1)
    return [x.to(torch.bfloat16).to(device), tokens, inter]


def reference(x, tokens, inter):
    g = x[:, :inter].float()
    y = g / (1.0 + torch.exp(-g)) * x[:, inter:].float()                    # silu(gate) * up, float32
    amax = y.abs().amax(dim=-1).clamp_min(1e-12)
    scale = amax / torch.full_like(amax, 448.0)          # an IEEE division (not a reciprocal multiply)
    q = (y / scale[:, None]).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q, scale
