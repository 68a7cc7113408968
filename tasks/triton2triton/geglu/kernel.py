"""GeGLU in Triton -- a straightforward baseline.

forward(x, rows, hidden) returns gelu(x[:, :hidden]) * x[:, hidden:] (exact GELU, float32).

A straightforward first kernel: a 2-D grid of programs, each one row by a block of up to 1024
columns (4 warps), float32 math. erf is Abramowitz & Stegun 7.1.26 (absolute error under
1.5e-7), built from exp. (On the CPU interpreter it takes many rows per program, only so that
the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _geglu_rows(x_ptr, y_ptr, M, H, ROWS: tl.constexpr, BLOCK_H: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    mask = (rows_ < M)[:, None] & (cols < H)[None, :]
    src = x_ptr + rows_.to(tl.int64)[:, None] * (2 * H)
    dst = y_ptr + rows_.to(tl.int64)[:, None] * H
    g = tl.load(src + cols[None, :], mask=mask, other=0.0)
    u = tl.load(src + H + cols[None, :], mask=mask, other=0.0)
    z = g * 0.7071067811865476
    a = tl.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf_a = 1.0 - poly * tl.exp(-a * a)
    erf_z = tl.where(z < 0, -erf_a, erf_a)
    tl.store(dst + cols[None, :], 0.5 * g * (1.0 + erf_z) * u, mask=mask)


def forward(x: torch.Tensor, rows: int, hidden: int) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty((rows, hidden), dtype=torch.float32, device=x.device)
    if rows == 0 or hidden == 0:
        return y
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_h = min(triton.next_power_of_2(hidden), 1 << 16)
        per_program = max(1, (1 << 16) // block_h)
    else:
        per_program, block_h = 1, min(triton.next_power_of_2(hidden), 1024)
    grid = (triton.cdiv(rows, per_program), triton.cdiv(hidden, block_h))
    _geglu_rows[grid](x, y, rows, hidden, ROWS=per_program, BLOCK_H=block_h, num_warps=4)
    return y
