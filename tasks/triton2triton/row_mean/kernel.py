"""Row mean in Triton -- correct but slow baseline.

forward(x, rows, cols) returns x.mean(dim=-1), a new float32 tensor of shape [rows].

This version runs one row per program on the GPU and walks it in blocks of 256 columns, whatever
the row length: short rows leave most of a program idle and a single long row runs on one
program. (On the CPU interpreter it takes big tiles, only so that the interpreter runs in
reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _row_mean_rows(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    base = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=0.0)
    tl.store(out_ptr + rows_, tl.sum(acc, axis=1) / N, mask=rows_ < M)


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        per_program, block_n, warps = 1, 256, 4
    _row_mean_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols,
                                                      ROWS=per_program, BLOCK_N=block_n, num_warps=warps)
    return out
