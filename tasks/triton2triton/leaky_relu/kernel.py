"""LeakyReLU in Triton -- correct but slow baseline.

forward(x, n, negative_slope) returns y with y[i] = x if x >= 0 else negative_slope * x, as a
new float32 tensor of x's shape.

This version launches one program per 128 elements with a single warp, and does the math in
float64 (upcast, then back; the product of two floats is exact in float64, so the result is the
float32 product), which is slow on most GPUs.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _leaky_relu_kernel(x_ptr, y_ptr, n, negative_slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float64)
    y = tl.where(x >= 0.0, x, x * negative_slope)
    tl.store(y_ptr + offs, y.to(tl.float32), mask=mask)


def forward(x: torch.Tensor, n: int, negative_slope: float) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    if n == 0:
        return y
    # On the CPU interpreter: big blocks, only so that the interpreter runs in reasonable time.
    block = 1 << 16 if x.device.type == "cpu" else 128
    _leaky_relu_kernel[(triton.cdiv(n, block),)](x, y, n, negative_slope, BLOCK=block, num_warps=1)
    return y
