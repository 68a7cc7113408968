"""Softplus in Triton: y = log(1 + exp(x)), y = x past the threshold 20 (as F.softplus), float32.

Written in the overflow-free form max(x, 0) + log(1 + exp(-|x|)): exp never sees a positive
argument. Where exp(-|x|) is below float32's epsilon, 1 + it rounds to 1 and that term is 0; the
error there is below exp(-|x|) < 1.2e-7 in absolute terms, far inside the tolerance.
Memory-bound: wide blocks, each element read and written once. Full blocks load and store without
a mask, so Triton can use 16-byte vector accesses even when n is not a multiple of 4 (a mask
`offs < n` on every block would forbid them); only the last, partial block is masked, in the
same launch.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _softplus(x):
    soft = tl.maximum(x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x)))
    return tl.where(x > 20.0, x, soft)


@triton.jit
def _softplus_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:      # full block: unmasked, vectorisable
        tl.store(y_ptr + offs, _softplus(tl.load(x_ptr + offs)))
    else:                       # the last, partial block
        mask = offs < n
        tl.store(y_ptr + offs, _softplus(tl.load(x_ptr + offs, mask=mask, other=0.0)), mask=mask)


def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and x.numel() == n
    x = x.contiguous()
    y = torch.empty_like(x)
    if n == 0:
        return y
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large blocks.
    block = 1 << 18 if x.device.type == "cpu" else 2048
    _softplus_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=8)
    return y
