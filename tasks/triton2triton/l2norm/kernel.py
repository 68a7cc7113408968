"""Row-wise L2 normalisation in Triton -- a straightforward first baseline.

forward(x, rows, cols, eps) returns x / max(||x||_2 over each row, eps), i.e.
torch.nn.functional.normalize(x, dim=-1, eps=eps), as a new float32 tensor of x's shape.

One row per program, walked twice in blocks of BLOCK = next_power_of_2(cols) columns, capped at
4096 (a single block when the row fits): the sum of squares, then the scaled output. Rows
narrower than 2048 columns are packed several to a program (2048 // BLOCK rows); programs take 4
warps, 8 for 4096-column blocks. (On the CPU interpreter it takes big tiles, only so that the
interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _l2norm_rows(x_ptr, out_ptr, M, N, eps, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    base = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=0.0)
        acc += x * x
    norm = tl.maximum(tl.sqrt(tl.sum(acc, axis=1)), eps)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(x_ptr + base + cols[None, :], mask=col_ok[None, :], other=0.0)
        tl.store(out_ptr + rows_.to(tl.int64)[:, None] * N + cols[None, :], x / norm[:, None],
                 mask=row_ok[:, None] & col_ok[None, :])


def forward(x: torch.Tensor, rows: int, cols: int, eps: float) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    if rows == 0 or cols == 0:
        return out
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        block_n = min(triton.next_power_of_2(cols), 4096)
        per_program = max(1, 2048 // block_n)
        warps = 8 if block_n >= 4096 else 4
    _l2norm_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols, float(eps),
                                                    ROWS=per_program, BLOCK_N=block_n, num_warps=warps)
    return out
