"""Top-k / top-p filtering and inverse-CDF sampling of float32 logits in Triton.

A program owns ROWS rows and walks them in BLOCK-wide chunks (any vocabulary fits). Logits map to
order-preserving integer keys (int64 in [0, 2^32): larger key, larger logit; -0.0 as +0.0), so both
thresholds are found by bisection on the key, 32 steps each:
  top-k: the largest key T with count(key >= T) >= k; of the tokens at T, the first k - count(key > T)
         by id are kept;
  top-p: over the top-k tokens, with e = exp(x - max), the largest key P with mass(key >= P) >= p * Z
         (Z their total mass); of the tokens at P, the first ceil((p * Z - mass(key > P)) / e_P) by id
         (at least one).
Ranks among equal keys are prefix counts in id order (tl.cumsum per chunk, a carry across chunks).
Then the kept mass M, and the first kept token by id whose cumulative mass exceeds u * M (the last
kept one if none).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _key(x):
    s = x.to(tl.int32, bitcast=True)
    s = tl.where(s == -2147483647 - 1, 0, s)                          # -0.0 is +0.0
    s = tl.where(s < 0, s ^ 0x7FFFFFFF, s)                            # negatives: larger magnitude, smaller
    return s.to(tl.int64) + 2147483647 + 1                             # [0, 2^32), in logit order


@triton.jit
def _top_k_chunk(base, c0, cols, row_ok, V, kt, need_k, seen):
    """One chunk of the rows: ids, logits, keys, which are in the top-k, and the count of tokens at
    key kt seen so far (in id order: the first need_k of them are in)."""
    c = c0 + cols
    m = row_ok[:, None] & (c < V)[None, :]
    x = tl.load(base + c[None, :], mask=m, other=0.0)
    key = _key(x)
    eq = m & (key == kt[:, None])
    rank = seen[:, None] + tl.cumsum(eq.to(tl.int64), axis=1) - 1
    in_k = m & ((key > kt[:, None]) | (eq & (rank < need_k[:, None])))
    return c, x, key, in_k, seen + tl.sum(eq.to(tl.int64), axis=1)


@triton.jit
def _nucleus(key, in_k, pt, need_p, seen_p):
    """Which top-k tokens of a chunk the nucleus keeps: key above pt, or the first need_p at pt."""
    eq_p = in_k & (key == pt[:, None])
    rank_p = seen_p[:, None] + tl.cumsum(eq_p.to(tl.int64), axis=1) - 1
    kept = in_k & ((key > pt[:, None]) | (eq_p & (rank_p < need_p[:, None])))
    return kept, seen_p + tl.sum(eq_p.to(tl.int64), axis=1)


@triton.jit
def _sample(x_ptr, k_ptr, p_ptr, u_ptr, out_ptr, B, V, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < B
    cols = tl.arange(0, BLOCK)
    base = x_ptr + rows[:, None] * V
    k = tl.load(k_ptr + rows, mask=row_ok, other=1)
    k = tl.minimum(tl.maximum(k, 1), V)

    # the row's largest logit (softmax's shift): an element-wise running max, reduced once after the
    # loop (Triton 3.6's TritonGPUOptimizeThreadLocality asserts on a loop-carried max of a reduced
    # load whose result has more than one use, and this is one fewer reduction per chunk)
    mx2 = tl.full([ROWS, BLOCK], float("-inf"), tl.float32)
    for c0 in range(0, V, BLOCK):
        c = c0 + cols
        m = row_ok[:, None] & (c < V)[None, :]
        mx2 = tl.maximum(mx2, tl.load(base + c[None, :], mask=m, other=float("-inf")))
    mx = tl.max(mx2, axis=1)

    # top-k threshold key T: largest T with count(key >= T) >= k
    lo = tl.zeros([ROWS], tl.int64)
    hi = tl.full([ROWS], 1 << 32, tl.int64)
    for _ in range(32):
        mid = (lo + hi) // 2
        cnt = tl.zeros([ROWS], tl.int64)
        for c0 in range(0, V, BLOCK):
            c = c0 + cols
            m = row_ok[:, None] & (c < V)[None, :]
            key = _key(tl.load(base + c[None, :], mask=m, other=0.0))
            cnt += tl.sum((m & (key >= mid[:, None])).to(tl.int64), axis=1)
        lo = tl.where(cnt >= k, mid, lo)
        hi = tl.where(cnt >= k, hi, mid)
    kt = lo
    gt = tl.zeros([ROWS], tl.int64)
    for c0 in range(0, V, BLOCK):
        c = c0 + cols
        m = row_ok[:, None] & (c < V)[None, :]
        key = _key(tl.load(base + c[None, :], mask=m, other=0.0))
        gt += tl.sum((m & (key > kt[:, None])).to(tl.int64), axis=1)
    need_k = k - gt                                     # tokens at key T to keep, lowest ids first

    # Z: the top-k mass
    z = tl.zeros([ROWS], tl.float32)
    seen = tl.zeros([ROWS], tl.int64)
    for c0 in range(0, V, BLOCK):
        c, x, key, in_k, seen = _top_k_chunk(base, c0, cols, row_ok, V, kt, need_k, seen)
        z += tl.sum(tl.where(in_k, tl.exp(x - mx[:, None]), 0.0), axis=1)
    p = tl.load(p_ptr + rows, mask=row_ok, other=1.0)
    target = tl.maximum(tl.maximum(p, 0.0) * z, 1e-30)     # p <= 0 keeps the first token (z >= 1: the max is in)

    # top-p threshold key P: largest P with mass(top-k, key >= P) >= target
    lo = tl.zeros([ROWS], tl.int64)
    hi = tl.full([ROWS], 1 << 32, tl.int64)
    for _ in range(32):
        mid = (lo + hi) // 2
        mass = tl.zeros([ROWS], tl.float32)
        seen = tl.zeros([ROWS], tl.int64)
        for c0 in range(0, V, BLOCK):
            c, x, key, in_k, seen = _top_k_chunk(base, c0, cols, row_ok, V, kt, need_k, seen)
            mass += tl.sum(tl.where(in_k & (key >= mid[:, None]), tl.exp(x - mx[:, None]), 0.0), axis=1)
        lo = tl.where(mass >= target, mid, lo)
        hi = tl.where(mass >= target, hi, mid)
    pt = lo
    # the mass above P, and e at P (the tokens at P share one logit)
    above = tl.zeros([ROWS], tl.float32)
    e_p = tl.zeros([ROWS], tl.float32)
    seen = tl.zeros([ROWS], tl.int64)
    for c0 in range(0, V, BLOCK):
        c, x, key, in_k, seen = _top_k_chunk(base, c0, cols, row_ok, V, kt, need_k, seen)
        e = tl.exp(x - mx[:, None])
        above += tl.sum(tl.where(in_k & (key > pt[:, None]), e, 0.0), axis=1)
        e_p = tl.maximum(e_p, tl.max(tl.where(in_k & (key == pt[:, None]), e, 0.0), axis=1))
    need_p = tl.maximum(tl.ceil((target - above) / tl.maximum(e_p, 1e-30)), 1.0).to(tl.int64)   # e_p = 0: no token at P, none needed

    # kept mass M, then the first kept token by id whose cumulative mass exceeds u * M
    total = tl.zeros([ROWS], tl.float32)
    last = tl.full([ROWS], -1, tl.int64)
    seen = tl.zeros([ROWS], tl.int64)
    seen_p = tl.zeros([ROWS], tl.int64)
    for c0 in range(0, V, BLOCK):
        c, x, key, in_k, seen = _top_k_chunk(base, c0, cols, row_ok, V, kt, need_k, seen)
        kept, seen_p = _nucleus(key, in_k, pt, need_p, seen_p)
        total += tl.sum(tl.where(kept, tl.exp(x - mx[:, None]), 0.0), axis=1)
        last = tl.maximum(last, tl.max(tl.where(kept, c[None, :].to(tl.int64), -1), axis=1))
    u = tl.load(u_ptr + rows, mask=row_ok, other=0.0)
    goal = u * total
    run = tl.zeros([ROWS], tl.float32)
    first = tl.zeros([ROWS], tl.int64) + V
    seen = tl.zeros([ROWS], tl.int64)
    seen_p = tl.zeros([ROWS], tl.int64)
    for c0 in range(0, V, BLOCK):
        c, x, key, in_k, seen = _top_k_chunk(base, c0, cols, row_ok, V, kt, need_k, seen)
        kept, seen_p = _nucleus(key, in_k, pt, need_p, seen_p)
        e = tl.where(kept, tl.exp(x - mx[:, None]), 0.0)
        hit = kept & (run[:, None] + tl.cumsum(e, axis=1) > goal[:, None])
        first = tl.minimum(first, tl.min(tl.where(hit, c[None, :].to(tl.int64), V), axis=1))
        run += tl.sum(e, axis=1)
    tl.store(out_ptr + rows, tl.where(first < V, first, last), mask=row_ok)


def forward(logits: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor, u: torch.Tensor, batch: int, vocab: int):
    logits = logits.contiguous()
    out = torch.empty((batch,), device=logits.device, dtype=torch.int64)
    if logits.device.type == "cpu":     # the interpreter: every row in one program, wide chunks
        rows, block = triton.next_power_of_2(batch), min(triton.next_power_of_2(vocab), max(1024, (1 << 18) // triton.next_power_of_2(batch)))
        warps = 4
    else:
        rows, block, warps = 1, min(triton.next_power_of_2(vocab), 4096), 8
    _sample[(triton.cdiv(batch, rows),)](logits, top_k.contiguous(), top_p.contiguous(), u.contiguous(), out,
                                         batch, vocab, ROWS=rows, BLOCK=block, num_warps=warps)
    return out
