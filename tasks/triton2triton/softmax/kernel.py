"""Row-wise softmax of a 2-D float32 tensor in Triton -- correct but slow baseline.

forward(x) returns softmax(x, dim=-1) as a new float32 tensor of x's shape.

This version makes three separate passes, one kernel each: the row maxima, the row sums of
exp(x - max), then the normalised output. Every pass re-reads x from global memory and walks
each row in small column blocks, one row per program.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _row_max_kernel(x_ptr, max_ptr, M, N, stride_xm,
                    ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    acc = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_ok[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask,
                    other=float("-inf"))
        acc = tl.maximum(acc, x)
    tl.store(max_ptr + rows, tl.max(acc, axis=1), mask=row_ok)


@triton.jit
def _row_sum_kernel(x_ptr, max_ptr, sum_ptr, M, N, stride_xm,
                    ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Rows past M get max 0 and only -inf inputs, so they stay finite (and are never stored).
    row_max = tl.load(max_ptr + rows, mask=row_ok, other=0.0)
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_ok[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask,
                    other=float("-inf"))
        acc += tl.exp(x - row_max[:, None])
    tl.store(sum_ptr + rows, tl.sum(acc, axis=1), mask=row_ok)


@triton.jit
def _normalize_kernel(x_ptr, max_ptr, sum_ptr, out_ptr, M, N, stride_xm, stride_om,
                      ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < M
    mask = row_ok[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    row_max = tl.load(max_ptr + rows, mask=row_ok, other=0.0)
    row_sum = tl.load(sum_ptr + rows, mask=row_ok, other=1.0)
    out = tl.exp(x - row_max[:, None]) / row_sum[:, None]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], out, mask=mask)


def forward(x: torch.Tensor) -> torch.Tensor:
    assert x.ndim == 2 and x.dtype == torch.float32
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    row_max = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum = torch.empty(M, device=x.device, dtype=torch.float32)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(N), 1 << 16)
        rows = max(1, (1 << 19) // block_n)
        num_warps = 4
    else:
        rows, block_n, num_warps = 1, 128, 4
    grid = (triton.cdiv(M, rows),)
    _row_max_kernel[grid](x, row_max, M, N, x.stride(0),
                          ROWS=rows, BLOCK_N=block_n, num_warps=num_warps)
    _row_sum_kernel[grid](x, row_max, row_sum, M, N, x.stride(0),
                          ROWS=rows, BLOCK_N=block_n, num_warps=num_warps)
    grid2 = (triton.cdiv(M, rows), triton.cdiv(N, block_n))
    _normalize_kernel[grid2](x, row_max, row_sum, out, M, N, x.stride(0), out.stride(0),
                             ROWS=rows, BLOCK_N=block_n, num_warps=num_warps)
    return out
