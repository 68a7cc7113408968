"""RMSNorm backward, bfloat16 with float32 math, given the forward's saved 1/rms (Apex, Transformer
Engine and Liger save it the same way).

Forward: y = x * rstd * w with rstd = rsqrt(mean(x^2) + eps) per row. Backward, with
xhat = x * rstd and g = dy * w:
    dx = rstd * (g - xhat * mean(g * xhat, -1))          # [rows, cols]
    dw = sum over rows of dy * xhat                       # [cols]
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, cols, eps = int(config["rows"]), int(config["cols"]), 1e-5
    x = (torch.randn((rows, cols), generator=generator)
         * torch.exp(torch.randn((rows, 1), generator=generator))).to(torch.bfloat16)
    w = (1.0 + 0.1 * torch.randn((cols,), generator=generator)).to(torch.bfloat16)
    dy = torch.randn((rows, cols), generator=generator).to(torch.bfloat16)
    rstd = torch.rsqrt(x.float().pow(2).mean(dim=-1) + eps)       # what the forward saved, float32 [rows]
    return [dy.to(device), x.to(device), w.to(device), rstd.to(device), rows, cols]


def reference(dy, x, w, rstd, rows, cols):
    xhat = x.float() * rstd[:, None]
    g = dy.float() * w.float()
    dx = rstd[:, None] * (g - xhat * (g * xhat).mean(dim=-1, keepdim=True))
    dw = (dy.float() * xhat).sum(dim=0)
    return dx.to(torch.bfloat16), dw.to(torch.bfloat16)
