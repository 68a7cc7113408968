"""Scaled SwiGLU activation in Triton -- a straightforward baseline.

forward(x, rows, hidden, scale) returns silu(x[:, :hidden]) * x[:, hidden:] * scale as a new
float16 tensor of shape [rows, hidden].

A straightforward first kernel: a 2-D grid of programs, each one row by a block of up to 1024
columns (4 warps), float32 math. (On the CPU interpreter it takes many rows per program, only
so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _silu_mul_rows_kernel(x_ptr, out_ptr, M, H, scale, ROWS: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    mask = (rows < M)[:, None] & (cols < H)[None, :]
    gate_ptrs = x_ptr + rows.to(tl.int64)[:, None] * (2 * H) + cols[None, :]
    gate = tl.load(gate_ptrs, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(gate_ptrs + H, mask=mask, other=0.0).to(tl.float32)
    out = gate / (1.0 + tl.exp(-gate)) * up * scale
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * H + cols[None, :], out.to(tl.float16), mask=mask)


def forward(x: torch.Tensor, rows: int, hidden: int, scale: float) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty((rows, hidden), device=x.device, dtype=x.dtype)
    if rows == 0 or hidden == 0:
        return out
    if x.device.type == "cpu":
        block_h = min(triton.next_power_of_2(hidden), 1 << 16)
        rows_per_program = max(1, (1 << 18) // block_h)
    else:
        block_h, rows_per_program = min(triton.next_power_of_2(hidden), 1024), 1
    grid = (triton.cdiv(rows, rows_per_program), triton.cdiv(hidden, block_h))
    _silu_mul_rows_kernel[grid](x, out, rows, hidden, float(scale), ROWS=rows_per_program,
                                BLOCK_H=block_h, num_warps=4)
    return out
