"""Rotary position embedding in Triton (rotate-half layout), float16 x, float32 cos/sin.

out[..., :half] = x1 * cos - x2 * sin; out[..., half:] = x2 * cos + x1 * sin, in float32, rounded
once to float16. Eager PyTorch makes a pass over memory per op; here each element is read and
written once. A program owns [ROWS, BLOCK_H] rotation pairs, rows being (token, head) pairs, so
short heads still make wide tiles; cos/sin rows are shared by a token's heads and stay in cache.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, R, H, HALF,
                 ROWS: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)   # row = token * H + head
    cols = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    mask = (rows < R)[:, None] & (cols < HALF)[None, :]
    token = rows // H
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
    assert x.shape == (tokens, heads, dim) and dim % 2 == 0
    assert cos.shape == sin.shape == (tokens, dim // 2)
    x, cos, sin = x.contiguous(), cos.contiguous(), sin.contiguous()
    out = torch.empty_like(x)
    half = dim // 2
    rows = tokens * heads
    block_h = triton.next_power_of_2(half)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        tile_rows = max(1, (1 << 18) // block_h)
    else:
        block_h = min(block_h, 256)
        tile_rows = max(1, 2048 // block_h)
    grid = (triton.cdiv(rows, tile_rows), triton.cdiv(half, block_h))
    _rope_kernel[grid](x, cos, sin, out, rows, heads, half, ROWS=tile_rows, BLOCK_H=block_h)
    return out
