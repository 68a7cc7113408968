"""Grouped GEMM of a mixture-of-experts layer (the expert projections of Mixtral-style MoE blocks,
what vLLM's fused_moe and grouped-GEMM libraries run), bfloat16.

x holds the routed tokens sorted by expert; expert e owns rows offsets[e]:offsets[e + 1] (some
experts get no token), and out[rows] = x[rows] @ w[e].T.
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    tokens, experts, n, k = int(config["T"]), int(config["E"]), int(config["n"]), int(config["k"])
    # Routing is skewed: expert popularity drawn from a log-normal, so loads are uneven and some
    # experts may get no token at all.
    popularity = torch.exp(1.5 * torch.randn((experts,), generator=generator))
    choice = torch.multinomial(popularity / popularity.sum(), tokens, replacement=True, generator=generator)
    counts = torch.bincount(choice, minlength=experts)
    offsets = torch.zeros((experts + 1,), dtype=torch.int64)
    offsets[1:] = torch.cumsum(counts, 0)
    x = torch.randn((tokens, k), generator=generator)
    w = torch.randn((experts, n, k), generator=generator) / k ** 0.5
    return [x.to(torch.bfloat16).to(device), w.to(torch.bfloat16).to(device), offsets.to(device),
            tokens, experts, n, k]


def reference(x, w, offsets, T, E, n, k):
    if x.is_cuda and torch.version.cuda and hasattr(torch, "_grouped_mm") and \
            torch.cuda.get_device_capability(x.device)[0] >= 9 and n % 8 == 0 and k % 8 == 0:
        # PyTorch eager on an NVIDIA Hopper or later: one grouped GEMM (torch._grouped_mm, what
        # torchtitan's MoE calls; rows 16-byte aligned), no host sync. The per-expert loop below
        # reads the offsets back to the host and launches per expert: a host-bound baseline whose
        # time moved 84 % between timings on an H200 (results/gpu-2026-11-29.md).
        return torch._grouped_mm(x, w.transpose(-2, -1), offs=offsets[1:].to(torch.int32), out_dtype=torch.bfloat16)
    # PyTorch eager: one GEMM per expert (bfloat16 on a GPU; float32 arithmetic on the CPU, where
    # bfloat16 matmuls are emulated), each rounded to bfloat16.
    out = torch.empty((T, n), dtype=torch.bfloat16, device=x.device)
    bounds = offsets.tolist()
    for e in range(E):
        s, t = bounds[e], bounds[e + 1]
        if t > s:
            if x.device.type == "cpu":
                out[s:t] = (x[s:t].float() @ w[e].float().T).to(torch.bfloat16)
            else:
                out[s:t] = x[s:t] @ w[e].T
    return out
