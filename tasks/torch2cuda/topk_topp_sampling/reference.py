"""Top-k then top-p (nucleus) filtering of float32 logits and one sampled token per row, as serving
stacks sample (vLLM's sampler, FlashInfer's top_k_top_p_sampling_from_logits), with the uniform
random number given as an input so that the choice is deterministic.

Per row (README.md says it in full): order the vocabulary by logit, largest first, ties by lower
token id; keep the first top_k; renormalise their softmax; keep the shortest prefix whose mass
reaches top_p; then, in token-id order over the kept tokens, return the first whose cumulative
mass exceeds u * (kept mass), or the last kept one if none does.
"""
import torch

# How far a kernel's float32 masses may sit from the float64 ones and still choose as they do
# (canonical() below): cumulative masses of a row are in [0, 1]; a float32 kernel that sums in
# blocks is within ~1e-6 of float64, this is 2^-16 (about 1.5e-5).
MASS_TOL = 2.0 ** -16


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    batch, vocab = int(config["batch"]), int(config["vocab"])
    # Made on the CPU with the generator. Logits as a language model's: a broad bulk, a few dozen
    # plausible tokens lifted above it, a temperature per row (peaked to flat distributions).
    x = 2.0 * torch.randn((batch, vocab), generator=generator)
    lifted = torch.rand((batch, vocab), generator=generator).argsort(dim=1)[:, : min(vocab, 32)]
    x.scatter_add_(1, lifted, 6.0 + 3.0 * torch.randn(lifted.shape, generator=generator))
    x = x / (0.4 + 1.2 * torch.rand((batch, 1), generator=generator))
    # Per-row settings as a serving batch mixes them: greedy (k = 1), the usual top-k values, top-k
    # off (k = vocab, nucleus over the whole vocabulary), p from 0.5 to 1 (1: top-p off).
    choices = torch.tensor([1, 5, 20, 50, 100, 1000, vocab])
    top_k = choices[torch.randint(0, len(choices), (batch,), generator=generator)].clamp(1, vocab)
    top_k[0] = vocab                                       # every config has a full-vocabulary nucleus row
    top_p = 0.5 + 0.5 * torch.rand((batch,), generator=generator)
    top_p[torch.rand((batch,), generator=generator) < 0.2] = 1.0
    u = torch.rand((batch,), generator=generator)
    return [x.to(device), top_k.to(torch.int64).to(device), top_p.to(device), u.to(device), batch, vocab]


def _filtered(logits, top_k, top_p):
    """Float64: the tokens in sorted order, their renormalised top-k masses and cumulative masses."""
    x = logits.double()
    vocab = x.shape[-1]
    vals, order = torch.sort(x, dim=-1, descending=True, stable=True)      # ties: lower id first
    pos = torch.arange(vocab, device=x.device)
    in_k = pos[None, :] < top_k.clamp(1, vocab)[:, None]
    e = torch.exp(vals - vals[:, :1]) * in_k
    q = e / e.sum(dim=-1, keepdim=True)
    return order, q, q.cumsum(dim=-1), in_k


def reference(logits, top_k, top_p, u, batch, vocab):
    order, q, cum, in_k = _filtered(logits, top_k, top_p)
    before = cum - q
    before[:, 0] = 0.0
    pos = torch.arange(vocab, device=logits.device)
    keep = in_k & ((before < top_p.double()[:, None]) | (pos[None, :] == 0))
    # Back to token-id order: the inverse CDF runs over the kept tokens by id.
    kept = torch.zeros_like(keep).scatter_(1, order, keep)
    mass = torch.zeros_like(q).scatter_(1, order, q * keep)
    total = mass.sum(dim=-1, keepdim=True)
    over = kept & (mass.cumsum(dim=-1) > u.double()[:, None] * total)
    first = torch.where(over, pos, vocab).amin(dim=-1)
    last = torch.where(kept, pos, -1).amax(dim=-1)
    return torch.where(first < vocab, first, last).to(torch.int64)


def canonical(outputs, logits, top_k, top_p, u, batch, vocab):
    """What the judge compares (docs/task-format.md, `canonical`): 1 where the row's token is a choice
    the rule above makes when each comparison of a cumulative mass with top_p or u * (kept mass) may
    go either way within MASS_TOL (float32 sums in another order can tip one that close), 0 where it
    is not. The reference's token is always 1; an id out of range, a token outside the top-k, one
    past the nucleus or one away from u's place in the kept mass is 0. `outputs` may be anything a
    candidate wrote: never index with it unchecked."""
    (token,) = outputs
    order, q, cum, in_k = _filtered(logits, top_k, top_p)
    before = cum - q
    before[:, 0] = 0.0
    p = top_p.double()
    uu = u.double().clamp(0.0, 1.0)
    ok = torch.zeros((batch,), dtype=torch.int64, device=logits.device)
    rank_of = torch.empty_like(order).scatter_(1, order, torch.arange(vocab, device=order.device).expand_as(order))
    for r in range(batch):
        t = int(token[r])
        if not 0 <= t < vocab:
            continue
        k = int(in_k[r].sum())
        # the nucleus sizes n the rule may settle on: position j is kept when before[j] < p
        n_lo = max(1, int((before[r, :k] < p[r] - MASS_TOL).sum()))
        n_hi = max(1, int((before[r, :k] < p[r] + MASS_TOL).sum()))
        rank = int(rank_of[r, t])
        if rank >= n_hi:
            continue
        # For each nucleus size n >= rank + 1: the kept mass M_n = cum[n - 1] and the mass of kept
        # tokens with a lower id than t, A_n (adds q[j] for sorted position j when order[j] < t).
        lo = max(n_lo, rank + 1)
        a = torch.where(order[r, :n_hi] < t, q[r, :n_hi], 0.0).cumsum(0)[lo - 1:n_hi]
        m = cum[r, lo - 1:n_hi]
        target = uu[r] * m
        fits = (a <= target + MASS_TOL) & (a + q[r, rank] >= target - MASS_TOL)
        ok[r] = int(bool(fits.any()))
    return (ok,)
