"""Matrix multiply C = A @ B: A [m, k] and B [k, n] float16, float32 accumulation, C float16."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    m, n, k = int(config["m"]), int(config["n"]), int(config["k"])
    # Made on the CPU with the generator so the values do not depend on the device. A has
    # variance 1/k, so A @ B is about N(0, 1) for any k.
    a = torch.randn((m, k), generator=generator, dtype=torch.float32) / k ** 0.5
    b = torch.randn((k, n), generator=generator, dtype=torch.float32)
    return [a.to(torch.float16).to(device), b.to(torch.float16).to(device), m, n, k]


def reference(a, b, m, n, k):
    # Products of float16 values are exact in float32: accumulate in float32, round to float16
    # once at the end. (Upcasting also keeps the CPU path fast: CPU float16 matmul is very slow.)
    return (a.float() @ b.float()).to(torch.float16)
