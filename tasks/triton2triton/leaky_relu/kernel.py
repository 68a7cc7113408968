"""LeakyReLU in Triton -- a straightforward baseline.

forward(x, n, negative_slope) returns y with y[i] = x if x >= 0 else negative_slope * x, as a
new float32 tensor of x's shape.

A straightforward first kernel: one 1024-element program (4 warps) per block, float32 math.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _leaky_relu_kernel(x_ptr, y_ptr, n, negative_slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x >= 0.0, x, x * negative_slope)
    tl.store(y_ptr + offs, y.to(tl.float32), mask=mask)


def forward(x: torch.Tensor, n: int, negative_slope: float) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    if n == 0:
        return y
    # On the CPU interpreter: big blocks, only so that the interpreter runs in reasonable time.
    block = 1 << 16 if x.device.type == "cpu" else 1024
    _leaky_relu_kernel[(triton.cdiv(n, block),)](x, y, n, negative_slope, BLOCK=block, num_warps=4)
    return y
