"""Mish in Triton -- a straightforward baseline.

forward(x, n) returns y = x * tanh(softplus(x)) as a new float32 tensor of x's shape.

A straightforward first kernel: one 1024-element program (4 warps) per block, float32 math.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    sp = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(tl.minimum(x, 20.0))))   # softplus
    e = tl.exp(-2.0 * sp)                                                  # sp >= 0: no overflow
    t = (1.0 - e) / (1.0 + e)                                              # tanh(sp)
    tl.store(y_ptr + offs, (x * t).to(tl.float32), mask=mask)


def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    if n == 0:
        return y
    # On the CPU interpreter: big blocks, only so that the interpreter runs in reasonable time.
    block = 1 << 16 if x.device.type == "cpu" else 1024
    _mish_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=4)
    return y
