"""Bias + GELU(tanh) + residual in Triton: bfloat16 in and out, float32 math, one fused pass.

PyTorch eager runs this as ~7 kernels (casts, add, gelu, add, cast) with float32 intermediates
in DRAM; here x and residual are read once and y written once. The tensors are contiguous, so
the kernel walks them as flat arrays of rows * cols elements (wide, vectorisable blocks whatever
the row length); only the bias index depends on the row layout (flat index mod cols), and the
small bias vector stays in cache.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _bias_gelu_residual_kernel(x_ptr, bias_ptr, res_ptr, y_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + offs % cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(res_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    h = x + b
    z = 0.7978845608028654 * (h + 0.044715 * h * h * h)      # sqrt(2 / pi) * (h + 0.044715 h^3)
    # tanh(z) = 1 - 2 / (exp(2z) + 1): exp overflows to inf for large z, giving exactly 1.
    t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)
    y = 0.5 * h * (1.0 + t) + r
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)


def forward(x: torch.Tensor, bias: torch.Tensor, residual: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    assert x.dtype == torch.bfloat16 and tuple(x.shape) == (rows, cols)
    x, bias, residual = x.contiguous(), bias.contiguous(), residual.contiguous()
    y = torch.empty_like(x)
    n = rows * cols
    if n == 0:
        return y
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large blocks.
    block = 1 << 18 if x.device.type == "cpu" else 2048
    _bias_gelu_residual_kernel[(triton.cdiv(n, block),)](x, bias, residual, y, n, cols,
                                                         BLOCK=block, num_warps=8)
    return y
