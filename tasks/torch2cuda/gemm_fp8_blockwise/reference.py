"""FP8 (e4m3fn) GEMM with block-wise scales, DeepSeek-V3's recipe (DeepGEMM, vLLM, SGLang):
activations carry one float32 scale per row and 128 columns (1 x 128), weights one per 128 x 128
block. out[i, j] = sum over k of a[i, k] * a_s[i, k // 128] * b[j, k] * b_s[j // 128, k // 128],
rounded to bfloat16.
"""
import torch

BLOCK = 128


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    m, n, k = int(config["m"]), int(config["n"]), int(config["k"])
    kb, nb = k // BLOCK, (n + BLOCK - 1) // BLOCK
    # Magnitudes vary per token, per 128-column group and per weight block: the scales matter.
    x = torch.randn((m, k), generator=generator) * torch.exp(torch.randn((m, kb), generator=generator)).repeat_interleave(BLOCK, 1)
    w = torch.randn((n, k), generator=generator) / k ** 0.5
    w = w * torch.exp(0.5 * torch.randn((nb, kb), generator=generator)).repeat_interleave(BLOCK, 0)[:n].repeat_interleave(BLOCK, 1)
    a_s = x.reshape(m, kb, BLOCK).abs().amax(dim=2).clamp_min(1e-12) / 448.0                      # [m, kb]
    a = (x / a_s.repeat_interleave(BLOCK, 1)).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    wp = torch.nn.functional.pad(w, (0, 0, 0, nb * BLOCK - n))
    b_s = wp.reshape(nb, BLOCK, kb, BLOCK).abs().amax(dim=(1, 3)).clamp_min(1e-12) / 448.0        # [nb, kb]
    b = (w / b_s.repeat_interleave(BLOCK, 0)[:n].repeat_interleave(BLOCK, 1)).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return [a.to(device), a_s.float().to(device), b.to(device), b_s.float().to(device), m, n, k]


def reference(a, a_s, b, b_s, m, n, k):
    # PyTorch eager without a block-scaled FP8 GEMM: dequantize both operands in float32, then one
    # float32 GEMM (IEEE: the judge switches TF32 off), rounded once to bfloat16. Not a bfloat16 GEMM:
    # rounding the dequantized operands to bfloat16 (2^-9 relative each) moves an output by about
    # 2^-9 * sqrt(sum_k (a b)^2), up to 0.5 on these inputs where the output is near zero, beyond the
    # bfloat16 tolerance of an exact kernel (README.md, "Tolerance").
    a_deq = a.float() * a_s.repeat_interleave(BLOCK, 1)
    b_deq = b.float() * b_s.repeat_interleave(BLOCK, 0)[:n].repeat_interleave(BLOCK, 1)
    return (a_deq @ b_deq.T).to(torch.bfloat16)
