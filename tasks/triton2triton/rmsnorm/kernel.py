"""RMSNorm in Triton -- correct but slow baseline.

forward(x, weight, rows, cols, eps) returns x * rsqrt(mean(x**2, dim=-1) + eps) * weight (float32).

This version runs one row per program on the GPU and walks it in blocks of 256 columns, twice
(sum of squares, output), whatever the row length: short rows leave most of a program idle and a
single long row runs on one program. (On the CPU interpreter it takes big tiles, only so that the
interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_rows(x_ptr, w_ptr, out_ptr, M, N, eps, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    base = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=0.0)
        acc += x * x
    mean_sq = tl.sum(acc, axis=1) / N
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(x_ptr + base + cols[None, :], mask=col_ok[None, :], other=0.0)
        w = tl.load(w_ptr + cols, mask=col_ok, other=0.0)
        out = x / tl.sqrt(mean_sq[:, None] + eps) * w[None, :]
        tl.store(out_ptr + rows_.to(tl.int64)[:, None] * N + cols[None, :], out, mask=row_ok[:, None] & col_ok[None, :])


def forward(x: torch.Tensor, weight: torch.Tensor, rows: int, cols: int, eps: float) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        per_program, block_n, warps = 1, 256, 4
    _rmsnorm_rows[(triton.cdiv(rows, per_program),)](x, weight, out, rows, cols, float(eps),
                                                     ROWS=per_program, BLOCK_N=block_n, num_warps=warps)
    return out
