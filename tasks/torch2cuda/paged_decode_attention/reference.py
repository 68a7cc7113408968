"""Decode attention over a paged KV cache, as vLLM / SGLang serve it, bfloat16 with a float32 softmax.

Each of B sequences has one new query token (Hq heads of size D) and seq_lens[b] cached tokens. The
cache is paged: token t of sequence b lives in physical block block_tables[b, t // block_size] at
slot t % block_size of k_cache / v_cache [num_blocks, block_size, Hkv, D] (vLLM's layout). Query head
h reads KV head h // (Hq // Hkv) (grouped-query attention).
"""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    B, Hq, Hkv, D = int(config["B"]), int(config["Hq"]), int(config["Hkv"]), int(config["D"])
    block_size, max_len = int(config["block_size"]), int(config["max_len"])
    max_blocks = (max_len + block_size - 1) // block_size
    num_blocks = B * max_blocks + 3
    # Context lengths spread over [1, max_len], one sequence at max_len; physical blocks shuffled
    # (a real cache's pages are never in order); unused table entries point at block 0, as vLLM pads.
    seq_lens = torch.randint(1, max_len + 1, (B,), generator=generator, dtype=torch.int32)
    seq_lens[torch.randint(0, B, (1,), generator=generator)] = max_len
    perm = torch.randperm(num_blocks, generator=generator).to(torch.int32)
    block_tables = torch.zeros((B, max_blocks), dtype=torch.int32)
    used = 0
    for b in range(B):
        nb = (int(seq_lens[b]) + block_size - 1) // block_size
        block_tables[b, :nb] = perm[used:used + nb]
        used += nb
    q = torch.randn((B, Hq, D), generator=generator)
    k_cache = torch.randn((num_blocks, block_size, Hkv, D), generator=generator)
    v_cache = torch.randn((num_blocks, block_size, Hkv, D), generator=generator)
    bf = torch.bfloat16
    return [q.to(bf).to(device), k_cache.to(bf).to(device), v_cache.to(bf).to(device), block_tables.to(device),
            seq_lens.to(device), D ** -0.5, B, Hq, Hkv, D, block_size, max_blocks]


def reference(q, k_cache, v_cache, block_tables, seq_lens, scale, B, Hq, Hkv, D, block_size, max_blocks):
    # Vectorised eager: gather every sequence's pages (padded to max_blocks), mask past seq_lens.
    G = Hq // Hkv
    L = max_blocks * block_size
    k = k_cache[block_tables.long()].reshape(B, L, Hkv, D).float()
    v = v_cache[block_tables.long()].reshape(B, L, Hkv, D).float()
    qf = q.float().reshape(B, Hkv, G, D)
    scores = torch.einsum("bhgd,blhd->bhgl", qf, k) * scale
    past = torch.arange(L, device=q.device)[None, :] >= seq_lens.long()[:, None]          # [B, L]
    scores = scores.masked_fill(past[:, None, None, :], float("-inf"))
    p = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhgl,blhd->bhgd", p, v)
    return out.reshape(B, Hq, D).to(torch.bfloat16)
