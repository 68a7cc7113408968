"""Permute (0, 2, 1, 3) in Triton -- correct but slow baseline.

forward(x, batch, seq, heads, dim) returns x.permute(0, 2, 1, 3).contiguous() for a float16
[batch, seq, heads, dim] x: a new [batch, heads, seq, dim] tensor.

This version launches one single-warp program per output head vector (b, h, s) on the GPU,
each copying `dim` halves, so a program moves a few hundred bytes at most. (On the CPU
interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _permute_rows(x_ptr, out_ptr, R, S, H, D, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)   # output row (b, h, s)
    cols = tl.arange(0, BLOCK_D)
    mask = (rows < R)[:, None] & (cols < D)[None, :]
    s = rows % S
    h = (rows // S) % H
    b = rows // (S * H)
    src = ((b * S + s) * H + h) * D
    vals = tl.load(x_ptr + src[:, None] + cols[None, :], mask=mask)
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], vals, mask=mask)


def forward(x: torch.Tensor, batch: int, seq: int, heads: int, dim: int) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty((batch, heads, seq, dim), device=x.device, dtype=x.dtype)
    rows = batch * heads * seq
    block_d = triton.next_power_of_2(dim)
    # On the CPU interpreter: many rows per program, only so that the interpreter runs in
    # reasonable time.
    per_program = max(1, (1 << 18) // block_d) if x.device.type == "cpu" else 1
    _permute_rows[(triton.cdiv(rows, per_program),)](x, out, rows, seq, heads, dim,
                                                     ROWS=per_program, BLOCK_D=block_d, num_warps=1)
    return out
