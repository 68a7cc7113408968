"""Rotary position embedding (RoPE, rotate-half / GPT-NeoX layout) on float16 [tokens, heads, dim]."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    tokens, heads, dim = int(config["tokens"]), int(config["heads"]), int(config["dim"])
    half = dim // 2
    # Made on the CPU with the generator so the values do not depend on the device.
    x = torch.randn((tokens, heads, dim), generator=generator, dtype=torch.float32).to(torch.float16)
    # Positions are arbitrary (as in a batch of packed sequences), the table the usual base 10000.
    positions = torch.randint(0, 32768, (tokens,), generator=generator, dtype=torch.int64).double()
    inv_freq = 10000.0 ** (-torch.arange(half, dtype=torch.float64) * 2.0 / dim)
    angles = positions[:, None] * inv_freq[None, :]
    cos, sin = angles.cos().float(), angles.sin().float()
    return [x.to(device), cos.to(device), sin.to(device), tokens, heads, dim]


def reference(x, cos, sin, tokens, heads, dim):
    # out[..., :half] = x1 * cos - x2 * sin; out[..., half:] = x2 * cos + x1 * sin (float32 math).
    half = dim // 2
    xf = x.float()
    x1, x2 = xf[..., :half], xf[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(torch.float16)
