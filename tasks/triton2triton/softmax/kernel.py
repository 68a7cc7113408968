"""Row-wise softmax of a 2-D float32 tensor in Triton -- a straightforward first baseline.

forward(x) returns softmax(x, dim=-1) as a new float32 tensor of x's shape.

One kernel, one row per program, walked three times in blocks of BLOCK = next_power_of_2(cols)
columns, capped at 4096 (a single block when the row fits): the row max m, the sum s of
exp(x - m), then the output exp(x - m) / s. Rows narrower than 2048 columns are packed several
to a program (2048 // BLOCK rows); programs take 4 warps, 8 for 4096-column blocks. (On the CPU
interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_rows(x_ptr, out_ptr, M, N, stride_xm, stride_om,
                  ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid): every row has a finite max, so no NaNs appear.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * stride_xm
    dst = out_ptr + rows.to(tl.int64)[:, None] * stride_om
    acc = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        acc = tl.maximum(acc, x)
    row_max = tl.max(acc, axis=1)
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        acc += tl.exp(x - row_max[:, None])
    row_sum = tl.sum(acc, axis=1)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=float("-inf"))
        tl.store(dst + cols[None, :], tl.exp(x - row_max[:, None]) / row_sum[:, None],
                 mask=row_ok[:, None] & col_ok[None, :])


def forward(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.dtype == torch.float32
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    if M == 0 or N == 0:
        return out
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(N), 1 << 16)
        rows, num_warps = max(1, (1 << 19) // block_n), 4
    else:
        block_n = min(triton.next_power_of_2(N), 4096)
        rows = max(1, 2048 // block_n)
        num_warps = 8 if block_n >= 4096 else 4
    _softmax_rows[(triton.cdiv(M, rows),)](x, out, M, N, x.stride(0), out.stride(0),
                                           ROWS=rows, BLOCK_N=block_n, num_warps=num_warps)
    return out
