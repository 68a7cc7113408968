"""GELU (tanh approximation) in Triton -- a straightforward baseline.

forward(x, n) returns y with y[i] = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
as a new float32 tensor of x's shape.

A straightforward first kernel: one 1024-element program (4 warps) per block, float32 math.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(2.0 * u)
    t = (e - 1.0) / (e + 1.0)
    t = tl.where(u > 20.0, 1.0, tl.where(u < -20.0, -1.0, t))  # e overflows past |u| ~ 350
    y = 0.5 * x * (1.0 + t)
    tl.store(y_ptr + offs, y.to(tl.float32), mask=mask)


def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    if n == 0:
        return y
    # On the CPU interpreter: big blocks, only so that the interpreter runs in reasonable time.
    block = 1 << 16 if x.device.type == "cpu" else 1024
    _gelu_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=4)
    return y
