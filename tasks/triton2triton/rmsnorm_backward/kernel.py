"""RMSNorm backward in Triton, bfloat16 in and out, float32 math -- a straightforward baseline.

forward(dy, x, w, rstd, rows, cols) returns (dx, dw):
dx = rstd * (g - xhat * mean(g * xhat)), g = dy * w, xhat = x * rstd;  dw = sum over rows of dy * xhat.

Two kernels, what a competent engineer writes first. dx: one row per 4-warp program, walked in
blocks of up to 1024 columns twice (the row's mean of g * xhat, then dx). dw: one program per 128
columns, walking all rows 32 at a time and summing in float32. (On the CPU interpreter both take
big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _load_block(dy_ptr, x_ptr, w_ptr, base, start, row_ok, C, BLOCK_C: tl.constexpr):
    # One [ROWS, BLOCK_C] block of dy and x and the matching w, in float32.
    cols = start + tl.arange(0, BLOCK_C)
    m = row_ok[:, None] & (cols < C)[None, :]
    dy = tl.load(dy_ptr + base + cols[None, :], mask=m, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + base + cols[None, :], mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=cols < C, other=0.0).to(tl.float32)
    return dy, x, w[None, :], cols, m


@triton.jit
def _dx_rows(dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, R, C, ROWS: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < R
    base = rows.to(tl.int64)[:, None] * C
    rs = tl.load(rstd_ptr + rows, mask=row_ok, other=0.0)
    acc = tl.zeros([ROWS, BLOCK_C], tl.float32)
    for start in range(0, C, BLOCK_C):
        dy, x, w, cols, m = _load_block(dy_ptr, x_ptr, w_ptr, base, start, row_ok, C, BLOCK_C)
        acc += dy * w * x
    mean = tl.sum(acc, axis=1) * rs / C                      # mean of g * xhat per row
    for start in range(0, C, BLOCK_C):
        dy, x, w, cols, m = _load_block(dy_ptr, x_ptr, w_ptr, base, start, row_ok, C, BLOCK_C)
        dx = rs[:, None] * (dy * w - x * rs[:, None] * mean[:, None])
        tl.store(dx_ptr + base + cols[None, :], dx.to(tl.bfloat16), mask=m)


@triton.jit
def _dw_cols(dy_ptr, x_ptr, rstd_ptr, dw_ptr, R, C, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = cols < C
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, R, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        row_ok = rows < R
        m = row_ok[:, None] & col_ok[None, :]
        offs = rows.to(tl.int64)[:, None] * C + cols[None, :]
        dy = tl.load(dy_ptr + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
        rs = tl.load(rstd_ptr + rows, mask=row_ok, other=0.0)
        acc += dy * x * rs[:, None]
    tl.store(dw_ptr + cols, tl.sum(acc, axis=0).to(tl.bfloat16), mask=col_ok)


def forward(dy: torch.Tensor, x: torch.Tensor, w: torch.Tensor, rstd: torch.Tensor, rows: int, cols: int):
    dy, x, w, rstd = dy.contiguous(), x.contiguous(), w.contiguous(), rstd.contiguous()
    dx = torch.empty((rows, cols), device=x.device, dtype=torch.bfloat16)
    dw = torch.empty((cols,), device=x.device, dtype=torch.bfloat16)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_c = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, (block_m, block_n) = max(1, (1 << 17) // block_c), (256, 256)
    else:
        per_program, block_c, (block_m, block_n) = 1, min(triton.next_power_of_2(cols), 1024), (32, 128)
    _dx_rows[(triton.cdiv(rows, per_program),)](dy, x, w, rstd, dx, rows, cols,
                                                ROWS=per_program, BLOCK_C=block_c, num_warps=4)
    _dw_cols[(triton.cdiv(cols, block_n),)](dy, x, rstd, dw, rows, cols,
                                            BLOCK_M=block_m, BLOCK_N=block_n, num_warps=4)
    return dx, dw
