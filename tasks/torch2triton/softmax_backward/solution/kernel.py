"""Softmax backward in Triton: dx = y * (dy - sum(y * dy, -1)), bfloat16 in and out, float32 math.

A program owns one row. A row that fits in BLOCK columns (up to 8192) is held in registers: one
read of y and dy. A longer row is walked twice in BLOCK-column chunks (the dot, then dx).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_bwd(y_ptr, dy_ptr, dx_ptr, C, BLOCK: tl.constexpr, ONE_PASS: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * C
    cols = tl.arange(0, BLOCK)
    if ONE_PASS:
        m = cols < C
        y = tl.load(y_ptr + base + cols, mask=m, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + base + cols, mask=m, other=0.0).to(tl.float32)
        dot = tl.sum(y * dy, axis=0)
        tl.store(dx_ptr + base + cols, (y * (dy - dot)).to(tl.bfloat16), mask=m)
    else:
        acc = tl.zeros([BLOCK], tl.float32)
        for start in range(0, C, BLOCK):
            m = start + cols < C
            y = tl.load(y_ptr + base + start + cols, mask=m, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + start + cols, mask=m, other=0.0).to(tl.float32)
            acc += y * dy
        dot = tl.sum(acc, axis=0)
        for start in range(0, C, BLOCK):
            m = start + cols < C
            y = tl.load(y_ptr + base + start + cols, mask=m, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + start + cols, mask=m, other=0.0).to(tl.float32)
            tl.store(dx_ptr + base + start + cols, (y * (dy - dot)).to(tl.bfloat16), mask=m)


def forward(y: torch.Tensor, dy: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    y, dy = y.contiguous(), dy.contiguous()
    dx = torch.empty((rows, cols), device=y.device, dtype=torch.bfloat16)
    limit = 1 << 16 if y.device.type == "cpu" else 8192     # the interpreter: large tiles
    block = min(triton.next_power_of_2(cols), limit)
    warps = 4 if block <= 2048 else 8
    _softmax_bwd[(rows,)](y, dy, dx, cols, BLOCK=block, ONE_PASS=cols <= block, num_warps=warps)
    return dx
