"""Linear layer with a fused bias + activation epilogue, bfloat16: out = act(x @ w.T + bias).

act is GELU (tanh approximation) when act == 0, SiLU when act == 1: the up-projection of a
GPT/Falcon-style MLP, or a SiLU-gated one's gate projection. Serving and training stacks fuse the
bias and the activation into the GEMM's epilogue (cuBLASLt epilogues, CUTLASS EVT, Triton).
"""
import torch
import torch.nn.functional as F


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    m, n, k, act = int(config["m"]), int(config["n"]), int(config["k"]), int(config["act"])
    x = torch.randn((m, k), generator=generator)
    w = torch.randn((n, k), generator=generator) / k ** 0.5           # unit-variance outputs
    b = 0.5 * torch.randn((n,), generator=generator)
    return [x.to(torch.bfloat16).to(device), w.to(torch.bfloat16).to(device),
            b.to(torch.bfloat16).to(device), m, n, k, act]


def reference(x, w, b, m, n, k, act):
    # PyTorch eager in bfloat16: the GEMM (+ bias) accumulates in float32 and rounds to bfloat16,
    # then the activation runs on the bfloat16 tensor. On the CPU the same rounding steps run in
    # float32 arithmetic (CPU bfloat16 matmuls are emulated and ~100x slower): the same result up to
    # float32 summation order.
    if x.device.type == "cpu":
        y = F.linear(x.float(), w.float(), b.float()).to(torch.bfloat16)
    else:
        y = F.linear(x, w, b)
    y = F.gelu(y.float(), approximate="tanh") if act == 0 else F.silu(y.float())
    return y.to(torch.bfloat16)
