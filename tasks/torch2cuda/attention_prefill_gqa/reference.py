"""Causal prefill attention over a packed batch of variable-length sequences, grouped-query heads,
bfloat16 in and out with float32 softmax and accumulation: FlashAttention's varlen forward
(flash_attn_varlen_func with causal=True), as vLLM and SGLang run prefill.

The B sequences are packed along the token axis: sequence b is tokens cu_seqlens[b] ..
cu_seqlens[b+1] - 1 of q [total, Hq, D] and k, v [total, Hkv, D]. Query head h attends with KV head
h // (Hq // Hkv), to the keys of its own sequence at or before its own position.
"""
import inspect

import torch
import torch.nn.functional as F

try:        # PyTorch's own varlen flash attention (torch >= 2.10): what a PyTorch user calls for this
    from torch.nn.attention.varlen import varlen_attn
    _VARLEN_ARGS = inspect.signature(varlen_attn).parameters
except ImportError:
    varlen_attn, _VARLEN_ARGS = None, {}


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    B, step = int(config["B"]), int(config["step"])
    Hq, Hkv, D = int(config["Hq"]), int(config["Hkv"]), int(config["D"])
    # Lengths step, 2 step, ..., B step in a shuffled order: a batch of short and long prompts whose
    # work ([work] in task.toml) is known from the config alone.
    lens = (torch.randperm(B, generator=generator) + 1) * step
    cu_seqlens = torch.zeros(B + 1, dtype=torch.int32)
    cu_seqlens[1:] = torch.cumsum(lens, 0)
    total = int(cu_seqlens[-1])
    # q scaled so that the scores have a standard deviation of about 2 at any D: the softmax is
    # neither flat nor one-hot.
    q = 2.0 * torch.randn((total, Hq, D), generator=generator)
    k = torch.randn((total, Hkv, D), generator=generator)
    v = torch.randn((total, Hkv, D), generator=generator)
    bf = torch.bfloat16
    return [q.to(bf).to(device), k.to(bf).to(device), v.to(bf).to(device), cu_seqlens.to(device),
            D ** -0.5, B, Hq, Hkv, D, B * step, total]


def reference(q, k, v, cu_seqlens, scale, B, Hq, Hkv, D, max_seqlen, total):
    if q.is_cuda and torch.version.cuda and varlen_attn is not None:
        # PyTorch eager on an NVIDIA GPU: one varlen flash kernel over the packed batch (float32
        # softmax and accumulation), no host sync. The per-sequence loop below reads cu_seqlens
        # back to the host and launches per sequence: a host-bound baseline whose time moved 50 %
        # between timings on an H200 (results/gpu-2026-11-29.md).
        if "enable_gqa" in _VARLEN_ARGS:
            return varlen_attn(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen, scale=scale,
                               enable_gqa=True, window_size=(-1, 0))
        # torch 2.10-2.12's varlen_attn has no enable_gqa: the flash kernel it calls takes grouped
        # heads as they are (FlashAttention-2 reads KV head h // (Hq // Hkv)).
        return torch.ops.aten._flash_attention_forward(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen,
                                                       0.0, True, return_debug_mask=False, scale=scale)[0]
    out = torch.empty_like(q)
    bounds = cu_seqlens.tolist()
    for b in range(B):
        s, e = bounds[b], bounds[b + 1]
        qb, kb, vb = (x[s:e].transpose(0, 1).unsqueeze(0) for x in (q, k, v))    # [1, heads, L, D]
        if q.device.type == "cpu":
            # The same math in float32, written out (CPU bfloat16 attention is emulated and slow):
            # scores, the causal mask, softmax, then the weighted sum of values.
            qf, kf, vf = qb.float(), kb.float().repeat_interleave(Hq // Hkv, 1), vb.float().repeat_interleave(Hq // Hkv, 1)
            scores = (qf @ kf.transpose(-1, -2)) * scale
            visible = torch.ones((e - s, e - s), dtype=torch.bool, device=q.device).tril()
            ob = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1) @ vf
        else:
            # PyTorch eager on a GPU without varlen_attn (ROCm, older torch): SDPA per sequence.
            ob = F.scaled_dot_product_attention(qb, kb, vb, is_causal=True, scale=scale, enable_gqa=True)
        out[s:e] = ob[0].transpose(0, 1).to(torch.bfloat16)
    return out
