"""Residual add fused with RMSNorm in Triton -- a straightforward first baseline.

forward(x, residual, weight, rows, cols, eps) returns (y, h): h = x + residual and
y = h * rsqrt(mean(h**2, dim=-1) + eps) * weight, new float32 tensors of x's shape.

One row per program, walked twice in blocks of BLOCK = next_power_of_2(cols) columns, capped at
4096 (a single block when the row fits): first h = x + residual, stored, and its sum of squares;
then h again from x and residual, scaled into y. Rows narrower than 2048 columns are packed
several to a program (2048 // BLOCK rows); programs take 4 warps, 8 for 4096-column blocks. (On
the CPU interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _add_rmsnorm_rows(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, M, N, eps, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    dst = rows_.to(tl.int64)[:, None] * N
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        h = (tl.load(x_ptr + src + cols[None, :], mask=col_ok[None, :], other=0.0)
             + tl.load(r_ptr + src + cols[None, :], mask=col_ok[None, :], other=0.0))
        tl.store(h_ptr + dst + cols[None, :], h, mask=row_ok[:, None] & col_ok[None, :])
        acc += h * h
    rstd = tl.rsqrt(tl.sum(acc, axis=1) / N + eps)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        h = (tl.load(x_ptr + src + cols[None, :], mask=col_ok[None, :], other=0.0)
             + tl.load(r_ptr + src + cols[None, :], mask=col_ok[None, :], other=0.0))
        w = tl.load(w_ptr + cols, mask=col_ok, other=0.0)
        tl.store(y_ptr + dst + cols[None, :], h * rstd[:, None] * w[None, :],
                 mask=row_ok[:, None] & col_ok[None, :])


def forward(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, rows: int, cols: int,
            eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    x, residual, weight = x.contiguous(), residual.contiguous(), weight.contiguous()
    y, h = torch.empty_like(x), torch.empty_like(x)
    if rows == 0 or cols == 0:
        return y, h
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        block_n = min(triton.next_power_of_2(cols), 4096)
        per_program = max(1, 2048 // block_n)
        warps = 8 if block_n >= 4096 else 4
    _add_rmsnorm_rows[(triton.cdiv(rows, per_program),)](x, residual, weight, y, h, rows, cols, float(eps),
                                                         ROWS=per_program, BLOCK_N=block_n, num_warps=warps)
    return y, h
