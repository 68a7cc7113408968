"""MoE router in Triton: softmax over experts, top-k, renormalised weights and int64 ids, one kernel.

PyTorch runs softmax, topk, sum and divide as separate kernels. The softmax denominator cancels
in the renormalised weights, w_r = exp(l_r - l_max) / sum over the chosen k of exp(l_j - l_max),
so only the chosen logits need an exp. Each program holds a [TOKENS, BLOCK_E] tile of logits in
registers and runs K rounds of a row-wise arg-max (the value, then the lowest id among equal
values), dropping each pick; the picks gather into [TOKENS, K] tiles that are stored once.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _moe_route_kernel(logits_ptr, w_ptr, id_ptr, T, E,
                      TOKENS: tl.constexpr, BLOCK_E: tl.constexpr, K: tl.constexpr):
    toks = tl.program_id(0).to(tl.int64) * TOKENS + tl.arange(0, TOKENS)
    tok_ok = toks < T
    cols = tl.arange(0, BLOCK_E)
    # Tail programs re-read the last token instead of masking whole rows: every row then has a
    # finite max (no -inf - -inf NaNs); their results are not stored.
    src = tl.minimum(toks, T - 1)
    x = tl.load(logits_ptr + src[:, None] * E + cols[None, :], mask=(cols < E)[None, :],
                other=float("-inf"))
    slots = tl.arange(0, K)
    top_val = tl.zeros([TOKENS, K], tl.float32)
    top_id = tl.zeros([TOKENS, K], tl.int32)
    row_max = tl.max(x, axis=1)
    for r in tl.static_range(K):
        best = tl.max(x, axis=1)
        best_id = tl.min(tl.where(x == best[:, None], cols[None, :], BLOCK_E), axis=1)
        top_val = tl.where(slots[None, :] == r, (best - row_max)[:, None], top_val)
        top_id = tl.where(slots[None, :] == r, best_id[:, None], top_id)
        x = tl.where(cols[None, :] == best_id[:, None], float("-inf"), x)
    e = tl.exp(top_val)
    w = e / tl.sum(e, axis=1)[:, None]
    out = toks[:, None] * K + slots[None, :]
    mask = tok_ok[:, None] & (slots < K)[None, :]
    tl.store(w_ptr + out, w, mask=mask)
    tl.store(id_ptr + out, top_id.to(tl.int64), mask=mask)


def forward(logits: torch.Tensor, tokens: int, experts: int, k: int):
    assert logits.dtype == torch.float32 and tuple(logits.shape) == (tokens, experts)
    assert 1 <= k <= experts and k & (k - 1) == 0, "k is a power of two (1, 2, 4 or 8)"
    logits = logits.contiguous()
    weights = torch.empty((tokens, k), device=logits.device, dtype=torch.float32)
    ids = torch.empty((tokens, k), device=logits.device, dtype=torch.int64)
    if tokens == 0:
        return weights, ids
    block_e = triton.next_power_of_2(experts)
    if logits.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        tile = 1 << 18
    else:
        tile = 2048   # ~16 logits per thread at 4 warps: the tile stays in registers
    per_program = max(1, tile // block_e)
    _moe_route_kernel[(triton.cdiv(tokens, per_program),)](
        logits, weights, ids, tokens, experts, TOKENS=per_program, BLOCK_E=block_e, K=k, num_warps=4)
    return weights, ids
