"""RMSNorm backward in Triton, bfloat16 in and out, float32 math:
dx = rstd * (g - xhat * mean(g * xhat)), g = dy * w, xhat = x * rstd;  dw = sum over rows of dy * xhat.

Two kernels: dx with one program per row (the whole row in registers, BLOCK_C >= cols); dw with
one program per BLOCK_N columns walking all rows BLOCK_M at a time and summing in float32.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _dx_kernel(dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, C, BLOCK_C: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_C)
    m = cols < C
    rs = tl.load(rstd_ptr + row)
    dy = tl.load(dy_ptr + row * C + cols, mask=m, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + row * C + cols, mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
    g = dy * w
    xhat = x * rs
    mean = tl.sum(g * xhat, axis=0) / C
    tl.store(dx_ptr + row * C + cols, (rs * (g - xhat * mean)).to(tl.bfloat16), mask=m)


@triton.jit
def _dw_kernel(dy_ptr, x_ptr, rstd_ptr, dw_ptr, R, C, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = cols < C
    acc = tl.zeros([BLOCK_N], tl.float32)
    for start in range(0, R, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        row_ok = rows < R
        m = row_ok[:, None] & col_ok[None, :]
        offs = rows.to(tl.int64)[:, None] * C + cols[None, :]
        dy = tl.load(dy_ptr + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
        rs = tl.load(rstd_ptr + rows, mask=row_ok, other=0.0)
        acc += tl.sum(dy * x * rs[:, None], axis=0)
    tl.store(dw_ptr + cols, acc.to(tl.bfloat16), mask=col_ok)


def forward(dy, x, w, rstd, rows: int, cols: int):
    dy, x, w, rstd = dy.contiguous(), x.contiguous(), w.contiguous(), rstd.contiguous()
    dx = torch.empty((rows, cols), device=x.device, dtype=torch.bfloat16)
    dw = torch.empty((cols,), device=x.device, dtype=torch.bfloat16)
    block_c = triton.next_power_of_2(cols)
    _dx_kernel[(rows,)](dy, x, w, rstd, dx, cols, BLOCK_C=block_c, num_warps=4 if block_c <= 2048 else 8)
    block_m, block_n = (256, 256) if x.device.type == "cpu" else (32, 64)   # the interpreter: large tiles
    _dw_kernel[(triton.cdiv(cols, block_n),)](dy, x, rstd, dw, rows, cols, BLOCK_M=block_m, BLOCK_N=block_n, num_warps=4)
    return dx, dw
