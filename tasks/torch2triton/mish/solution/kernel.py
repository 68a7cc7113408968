"""Mish in Triton: y = x * tanh(softplus(x)), float32, one kernel.

One exp per element: with e = exp(x) and n = e * (e + 2), tanh(log1p(e)) = n / (n + 2). Past
x = 20 the factor is 1 to float32 precision (and e * e would overflow past x ~ 44), so y = x.
Memory-bound: wide blocks, each element read and written once. Full blocks load and store without
a mask, so Triton can use 16-byte vector accesses even when n is not a multiple of 4 (a mask
`offs < n` on every block would forbid them); only the last, partial block is masked, in the
same launch.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _mish(x):
    e = tl.exp(tl.minimum(x, 20.0))
    t = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (t / (t + 2.0)))


@triton.jit
def _mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:      # full block: unmasked, vectorisable
        tl.store(y_ptr + offs, _mish(tl.load(x_ptr + offs)))
    else:                       # the last, partial block
        mask = offs < n
        tl.store(y_ptr + offs, _mish(tl.load(x_ptr + offs, mask=mask, other=0.0)), mask=mask)


def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and x.numel() == n
    x = x.contiguous()
    y = torch.empty_like(x)
    if n == 0:
        return y
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large blocks.
    block = 1 << 18 if x.device.type == "cpu" else 2048
    _mish_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=8)
    return y
