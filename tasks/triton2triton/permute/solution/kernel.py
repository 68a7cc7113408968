"""Permute (0, 2, 1, 3) in Triton: float16 [batch, seq, heads, dim] -> contiguous [batch, heads, seq, dim].

Both layouts keep each head vector of `dim` elements contiguous, and each output slab (b, h) is a
contiguous [seq, dim] block, so the permute is a gather of rows. The grid is (blocks, slab): a
program knows its (b, h) from program_id(1) and copies BLOCK consecutive units of its slab, a unit
being VEC elements (VEC = the largest power of two up to 16 bytes dividing dim), so loads and
stores are 16-byte vectors when dim % 8 == 0 and nothing is wasted on padding to a power of two.
dim // VEC is a compile-time constant, so the only per-unit division is by a constant.

The tensors here are small (a few us): the block is chosen from the size so that even small
tensors spread over a couple of hundred programs (latency, not bandwidth, bounds them), and the
wrapper does no work beyond allocating and launching. When seq or heads is 1 the permute is the
identity and the whole tensor is one contiguous slab per batch.
"""
import torch
import triton
import triton.language as tl

_TARGET_PROGRAMS = 264        # ~2 per SM on an H100 (132 SMs)
_MAX_BLOCK_ELEMS = 4096       # elements per program, upper bound (8 KB of float16)
_MIN_BLOCK_ELEMS = 256        # one warp, 8 elements per thread


@triton.jit
def _permute_kernel(x_ptr, out_ptr, S, H, SU, DU: tl.constexpr, VEC: tl.constexpr,
                    BLOCK: tl.constexpr, WIDE: tl.constexpr):
    bh = tl.program_id(1)                 # output slab (b, h)
    v = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)   # unit within the slab, row-major (s, du)
    if WIDE:                              # more than 2**31 elements: 64-bit offsets
        bh = bh.to(tl.int64)
        v = v.to(tl.int64)
    b = bh // H
    h = bh - b * H
    ok = v < SU
    s = v // DU
    du = v - s * DU
    lanes = tl.arange(0, VEC)[None, :]
    src = (((b * S + s) * H + h) * DU + du)[:, None] * VEC + lanes
    dst = (bh * SU + v)[:, None] * VEC + lanes
    vals = tl.load(x_ptr + src, mask=ok[:, None])
    tl.store(out_ptr + dst, vals, mask=ok[:, None])


def forward(x: torch.Tensor, batch: int, seq: int, heads: int, dim: int) -> torch.Tensor:
    assert x.shape == (batch, seq, heads, dim) and x.is_contiguous()
    out = torch.empty((batch, heads, seq, dim), device=x.device, dtype=x.dtype)
    numel = out.numel()
    if numel == 0:
        return out
    if seq == 1 or heads == 1:            # identity: one contiguous slab per batch
        seq, heads = seq * heads, 1
    vec = 16 // x.element_size()
    while dim % vec:
        vec //= 2
    du = dim // vec
    su = seq * du                          # units per slab
    slabs = batch * heads
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        block = min(triton.next_power_of_2(su), max(1, (1 << 18) // vec))
    else:
        block = min(triton.next_power_of_2(su), _MAX_BLOCK_ELEMS // vec)
        while block * vec > _MIN_BLOCK_ELEMS and slabs * triton.cdiv(su, block) < _TARGET_PROGRAMS:
            block //= 2
    warps = max(1, min(4, block * vec // 1024))
    grid = (triton.cdiv(su, block), slabs)
    _permute_kernel[grid](x, out, seq, heads, su, DU=du, VEC=vec, BLOCK=block,
                          WIDE=numel >= 2**31, num_warps=warps)
    return out
