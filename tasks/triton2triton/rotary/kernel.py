"""Rotary position embedding in Triton (rotate-half layout) -- correct but slow baseline.

forward(x, cos, sin, tokens, heads, dim) returns RoPE of x as a new float16 tensor
[tokens, heads, dim] (see reference.py and README.md).

One program per (token, head) row, walking the rotation pairs in 16-wide blocks: many tiny
programs, narrow loads, and each head re-reads its token's cos/sin.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rope_row_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, R, H, HALF,
                     ROWS: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)   # row = token * H + head
    token = rows // H
    for start in range(0, HALF, BLOCK_H):
        cols = start + tl.arange(0, BLOCK_H)
        mask = (rows < R)[:, None] & (cols < HALF)[None, :]
        x_row = rows[:, None] * (2 * HALF) + cols[None, :]
        t_off = token[:, None] * HALF + cols[None, :]
        x1 = tl.load(x_ptr + x_row, mask=mask, other=0.0).to(tl.float32)
        x2 = tl.load(x_ptr + x_row + HALF, mask=mask, other=0.0).to(tl.float32)
        c = tl.load(cos_ptr + t_off, mask=mask, other=0.0)
        s = tl.load(sin_ptr + t_off, mask=mask, other=0.0)
        tl.store(out_ptr + x_row, (x1 * c - x2 * s).to(tl.float16), mask=mask)
        tl.store(out_ptr + x_row + HALF, (x2 * c + x1 * s).to(tl.float16), mask=mask)


def forward(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
            tokens: int, heads: int, dim: int) -> torch.Tensor:
    x, cos, sin = x.contiguous(), cos.contiguous(), sin.contiguous()
    out = torch.empty_like(x)
    half = dim // 2
    rows = tokens * heads
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: whole rows, many per program.
        block_h = triton.next_power_of_2(half)
        tile_rows = max(1, (1 << 18) // block_h)
    else:
        tile_rows, block_h = 1, 16
    _rope_row_kernel[(triton.cdiv(rows, tile_rows),)](x, cos, sin, out, rows, heads, half,
                                                      ROWS=tile_rows, BLOCK_H=block_h)
    return out
