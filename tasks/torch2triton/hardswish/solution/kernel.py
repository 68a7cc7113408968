"""Hardswish in Triton: y = x * relu6(x + 3) / 6, float32, one kernel.

Memory-bound: wide blocks (8 elements per thread, vectorised 16-byte accesses), each element read
and written once, 64-bit offsets. Full blocks load and store without a mask, so the 16-byte
accesses hold even when n is not a multiple of 4 (a mask `offs < n` on every block would forbid
them); only the last, partial block is masked, in the same launch.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _hardswish(x):
    return x * tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0) / 6.0    # PyTorch's operation order


@triton.jit
def _hardswish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:      # full block: unmasked, vectorisable
        tl.store(y_ptr + offs, _hardswish(tl.load(x_ptr + offs)))
    else:                       # the last, partial block
        mask = offs < n
        tl.store(y_ptr + offs, _hardswish(tl.load(x_ptr + offs, mask=mask, other=0.0)), mask=mask)


def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and x.numel() == n
    x = x.contiguous()
    y = torch.empty_like(x)
    if n == 0:
        return y
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large blocks.
    block = 1 << 18 if x.device.type == "cpu" else 2048
    _hardswish_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=8)
    return y
