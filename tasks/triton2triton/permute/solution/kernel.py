"""Permute (0, 2, 1, 3) in Triton: float16 [batch, seq, heads, dim] -> contiguous [batch, heads, seq, dim].

Both layouts keep each head vector of `dim` elements contiguous, so the permute is a gather of
rows: output row (b, h, s) is input row (b, s, h). A program moves a [ROWS, BLOCK_D] tile of
output rows with contiguous loads and stores along dim.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _permute_kernel(x_ptr, out_ptr, R, S, H, D, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)   # output row (b, h, s)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = (rows < R)[:, None] & (cols < D)[None, :]
    s = rows % S
    bh = rows // S
    h = bh % H
    b = bh // H
    src = ((b * S + s) * H + h) * D
    vals = tl.load(x_ptr + src[:, None] + cols[None, :], mask=mask)
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], vals, mask=mask)


def forward(x: torch.Tensor, batch: int, seq: int, heads: int, dim: int) -> torch.Tensor:
    assert x.shape == (batch, seq, heads, dim)
    x = x.contiguous()
    out = torch.empty((batch, heads, seq, dim), device=x.device, dtype=x.dtype)
    rows = batch * heads * seq
    block_d = triton.next_power_of_2(dim)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        tile_rows = max(1, (1 << 18) // block_d)
    else:
        block_d = min(block_d, 512)
        tile_rows = max(1, 4096 // block_d)
    grid = (triton.cdiv(rows, tile_rows), triton.cdiv(dim, block_d))
    _permute_kernel[grid](x, out, rows, seq, heads, dim, ROWS=tile_rows, BLOCK_D=block_d)
    return out
