"""MoE router: softmax over experts, top-k, renormalised top-k weights and int64 expert ids."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    tokens, experts, k = int(config["tokens"]), int(config["experts"]), int(config["k"])
    # Made on the CPU with the generator so the values do not depend on the device. Each row is a
    # random permutation of 0.1 * (0 .. experts - 1) plus jitter below 0.05 and a per-token
    # offset: logits of one token differ by at least 0.05, so their softmax values are distinct
    # (no ties: the top-k ids are well defined) and the offsets make the max subtraction matter.
    ranks = torch.argsort(torch.rand((tokens, experts), generator=generator), dim=-1).to(torch.float32)
    jitter = 0.05 * torch.rand((tokens, experts), generator=generator)
    offset = 4.0 * torch.randn((tokens, 1), generator=generator)
    logits = 0.1 * ranks + jitter + offset
    return [logits.to(device), tokens, experts, k]


def reference(logits, tokens, experts, k):
    # The top-k of the softmax are the top-k logits (softmax is monotonic), and their renormalised
    # probabilities are a softmax over the chosen logits (the full denominator cancels). Picking by
    # logit rather than by probability keeps the ids defined where probabilities underflow to equal
    # zeros (the judge's outlier inputs scale some logits by 50); a stable sort makes equal logits
    # (the judge's per-repetition perturbation can make two of a token's logits equal, a few times in
    # a million tokens) go to the lower expert id first, as torch.topk does not promise.
    values, order = torch.sort(logits, dim=-1, descending=True, stable=True)
    return torch.softmax(values[:, :k], dim=-1), order[:, :k].contiguous()
