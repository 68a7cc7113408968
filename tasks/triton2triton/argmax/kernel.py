"""Argmax over rows in Triton -- correct but slow baseline.

forward(x, rows, cols) returns torch.argmax(x, dim=-1) (int64, [rows]).

This version runs one row per program on the GPU with one warp and walks it in blocks of 64
columns, whatever the row length. (On the CPU interpreter it takes big tiles, only so that the
interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _argmax_rows(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    base = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    best_v = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
    best_i = tl.full([ROWS, BLOCK_N], 0, tl.int64) + tl.arange(0, BLOCK_N)[None, :]
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        better = x > best_v
        best_v = tl.where(better, x, best_v)
        best_i = tl.where(better, cols[None, :].to(tl.int64), best_i)
    m = tl.max(best_v, axis=1)
    first = tl.min(tl.where(best_v == m[:, None], best_i, N), axis=1)
    tl.store(out_ptr + rows_, first.to(tl.int64), mask=row_ok)


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty((rows,), dtype=torch.int64, device=x.device)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        per_program, block_n, warps = 1, min(triton.next_power_of_2(cols), 1024), 4
    _argmax_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols, ROWS=per_program,
                                                    BLOCK_N=block_n, num_warps=warps)
    return out
