"""Top-k along rows in Triton -- correct but slow baseline.

forward(x, rows, cols, k) returns torch.topk(x, k, dim=-1) as (values float32 [rows, k],
indices int64 [rows, k]), sorted by decreasing value, ties to the lower column.

This version runs one row per program with one warp and makes k passes over the row in blocks of
64 columns, each finding the best element that ranks after the previous pick, whatever the row
length. (On the CPU interpreter it takes big tiles, only so that the interpreter runs in
reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _topk_passes(x_ptr, v_ptr, i_ptr, M, N, K, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    src = x_ptr + tl.minimum(rows, M - 1)[:, None] * N
    prev_v = tl.full([ROWS], float("inf"), tl.float32)
    prev_i = tl.full([ROWS], -1, tl.int64)
    for r in range(0, K):
        best_v = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
        best_i = tl.full([ROWS, BLOCK_N], 0, tl.int64) + N
        for start in range(0, N, BLOCK_N):
            c = (start + tl.arange(0, BLOCK_N)).to(tl.int64)
            x = tl.load(src + c[None, :], mask=(c < N)[None, :], other=float("-inf"))
            after = (x < prev_v[:, None]) | ((x == prev_v[:, None]) & (c[None, :] > prev_i[:, None]))
            better = after & (c < N)[None, :] & (x > best_v)
            best_v = tl.where(better, x, best_v)
            best_i = tl.where(better, c[None, :], best_i)
        top = tl.max(best_v, axis=1)
        first = tl.min(tl.where(best_v == top[:, None], best_i, N), axis=1)
        tl.store(v_ptr + rows * K + r, top, mask=row_ok)
        tl.store(i_ptr + rows * K + r, first, mask=row_ok)
        prev_v = top
        prev_i = first


def forward(x: torch.Tensor, rows: int, cols: int, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    x = x.contiguous()
    values = torch.empty((rows, k), dtype=torch.float32, device=x.device)
    indices = torch.empty((rows, k), dtype=torch.int64, device=x.device)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        per_program, block_n, warps = 1, min(triton.next_power_of_2(cols), 1024), 4
    _topk_passes[(triton.cdiv(rows, per_program),)](x, values, indices, rows, cols, k,
                                                    ROWS=per_program, BLOCK_N=block_n, num_warps=warps)
    return values, indices
