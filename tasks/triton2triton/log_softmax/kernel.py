"""Log-softmax in Triton -- a straightforward first baseline.

forward(x, rows, cols) returns torch.log_softmax(x, dim=-1) (float32).

One row per program, walked three times in blocks of BLOCK = next_power_of_2(cols) columns,
capped at 4096 (a single block when the row fits): the row max m, the sum s of exp(x - m), then
the output x - m - log(s). Rows narrower than 2048 columns are packed several to a program
(2048 // BLOCK rows); programs take 4 warps, 8 for 4096-column blocks. (On the CPU interpreter it
takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _log_softmax_rows(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    # Tail programs re-read row M-1 (always valid): every row has a finite max, so no NaNs appear.
    base = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    acc = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        acc = tl.maximum(acc, x)
    m = tl.max(acc, axis=1)
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        acc += tl.exp(x - m[:, None])
    shift = m + tl.log(tl.sum(acc, axis=1))
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(x_ptr + base + cols[None, :], mask=col_ok[None, :], other=0.0)
        tl.store(out_ptr + rows_.to(tl.int64)[:, None] * N + cols[None, :], x - shift[:, None],
                 mask=row_ok[:, None] & col_ok[None, :])


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
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
    _log_softmax_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols, ROWS=per_program,
                                                         BLOCK_N=block_n, num_warps=warps)
    return out
