"""Softmax backward in Triton, bfloat16 in and out, float32 math -- a straightforward baseline.

forward(y, dy, rows, cols) returns dx = y * (dy - sum(y * dy, -1)) (bfloat16 [rows, cols]).

What a competent engineer writes first: one row per 4-warp program, walked in blocks of up to
1024 columns twice (the row's dot product sum(y * dy), then dx), so y and dy are read twice. (On
the CPU interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_bwd_rows(y_ptr, dy_ptr, dx_ptr, R, C, ROWS: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < R
    base = rows.to(tl.int64)[:, None] * C
    acc = tl.zeros([ROWS, BLOCK_C], tl.float32)
    for start in range(0, C, BLOCK_C):
        cols = start + tl.arange(0, BLOCK_C)
        m = row_ok[:, None] & (cols < C)[None, :]
        y = tl.load(y_ptr + base + cols[None, :], mask=m, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + base + cols[None, :], mask=m, other=0.0).to(tl.float32)
        acc += y * dy
    dot = tl.sum(acc, axis=1)
    for start in range(0, C, BLOCK_C):
        cols = start + tl.arange(0, BLOCK_C)
        m = row_ok[:, None] & (cols < C)[None, :]
        y = tl.load(y_ptr + base + cols[None, :], mask=m, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + base + cols[None, :], mask=m, other=0.0).to(tl.float32)
        tl.store(dx_ptr + base + cols[None, :], (y * (dy - dot[:, None])).to(tl.bfloat16), mask=m)


def forward(y: torch.Tensor, dy: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    y, dy = y.contiguous(), dy.contiguous()
    dx = torch.empty((rows, cols), device=y.device, dtype=torch.bfloat16)
    if y.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_c = min(triton.next_power_of_2(cols), 1 << 16)
        per_program = max(1, (1 << 17) // block_c)
    else:
        per_program, block_c = 1, min(triton.next_power_of_2(cols), 1024)
    _softmax_bwd_rows[(triton.cdiv(rows, per_program),)](y, dy, dx, rows, cols,
                                                         ROWS=per_program, BLOCK_C=block_c, num_warps=4)
    return dx
