"""GeGLU in Triton -- one fused kernel.

forward(x, rows, hidden) returns gelu(x[:, :hidden]) * x[:, hidden:] (exact GELU, float32).

Each program takes a tile of rows x columns, reads the gate and up tiles, writes the product:
one read of x, one write of y. erf is evaluated with Abramowitz & Stegun 7.1.26 (absolute
error under 1.5e-7), which needs only exp, so it runs in the interpreter too.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _erf(z):
    a = tl.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    e = 1.0 - poly * tl.exp(-a * a)
    return tl.where(z < 0, -e, e)


@triton.jit
def _geglu_kernel(x_ptr, y_ptr, M, H, ROWS: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    mask = (rows < M)[:, None] & (cols < H)[None, :]
    src = x_ptr + rows.to(tl.int64)[:, None] * (2 * H) + cols[None, :]
    g = tl.load(src, mask=mask, other=0.0)
    u = tl.load(src + H, mask=mask, other=0.0)
    y = 0.5 * g * (1.0 + _erf(g * 0.7071067811865476)) * u
    tl.store(y_ptr + rows.to(tl.int64)[:, None] * H + cols[None, :], y, mask=mask)


def forward(x: torch.Tensor, rows: int, hidden: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (rows, 2 * hidden)
    x = x.contiguous()
    y = torch.empty((rows, hidden), dtype=torch.float32, device=x.device)
    block_h = min(triton.next_power_of_2(hidden), 1 << 16 if x.device.type == "cpu" else 1024)
    # About 64K elements per program on the CPU interpreter (few programs), 4K on a GPU.
    per_program = max(1, (1 << 16 if x.device.type == "cpu" else 4096) // block_h)
    grid = (triton.cdiv(rows, per_program), triton.cdiv(hidden, block_h))
    _geglu_kernel[grid](x, y, rows, hidden, ROWS=per_program, BLOCK_H=block_h, num_warps=4)
    return y
