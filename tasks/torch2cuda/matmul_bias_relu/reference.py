"""GEMM with a fused epilogue: relu(A @ B + bias), A [m, k] and B [k, n] float16, bias [n] float32,
float32 accumulation, float16 output."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    m, n, k = int(config["m"]), int(config["n"]), int(config["k"])
    # Made on the CPU with the generator so the values do not depend on the device. A has
    # variance 1/k, so A @ B is about N(0, 1) for any k; the bias shifts each column, so about
    # half of the outputs are clamped to 0 and the rest are O(1).
    a = torch.randn((m, k), generator=generator, dtype=torch.float32) / k ** 0.5
    b = torch.randn((k, n), generator=generator, dtype=torch.float32)
    bias = 0.5 * torch.randn((n,), generator=generator, dtype=torch.float32)
    return [a.to(torch.float16).to(device), b.to(torch.float16).to(device), bias.to(device), m, n, k]


def reference(a, b, bias, m, n, k):
    # Products of float16 values are exact in float32: accumulate in float32, add the bias and
    # clamp in float32, round to float16 once at the end. (Upcasting also keeps the CPU path
    # fast: CPU float16 matmul is very slow.)
    return torch.relu(a.float() @ b.float() + bias).to(torch.float16)
