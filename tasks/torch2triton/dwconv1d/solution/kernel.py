"""Depthwise 1-D convolution in Triton (odd kernel, same padding, bias), float32.

Memory-bound: each x element feeds KS neighbouring outputs. A program owns [ROWS, BLOCK_T]
outputs (rows being (batch, channel) pairs, so short rows still make wide tiles); the taps unroll
(KS is a compile-time constant), each a shifted load of the same stretch that mostly hits in
cache, and the row's KS weights and bias are loaded once per tile.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _dwconv_kernel(x_ptr, w_ptr, b_ptr, out_ptr, R, C, L,
                   KS: tl.constexpr, ROWS: tl.constexpr, BLOCK_T: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    t = tl.program_id(1) * BLOCK_T + tl.arange(0, BLOCK_T)
    row_ok = rows < R
    ok = row_ok[:, None] & (t < L)[None, :]
    ch = rows % C
    acc = tl.zeros([ROWS, BLOCK_T], dtype=tl.float32) + tl.load(b_ptr + ch, mask=row_ok, other=0.0)[:, None]
    for j in tl.static_range(KS):
        p = t + (j - KS // 2)
        inside = ok & ((p >= 0) & (p < L))[None, :]
        v = tl.load(x_ptr + rows[:, None] * L + p[None, :], mask=inside, other=0.0)
        w = tl.load(w_ptr + ch * KS + j, mask=row_ok, other=0.0)
        acc += w[:, None] * v
    tl.store(out_ptr + rows[:, None] * L + t[None, :], acc, mask=ok)


def forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
            batch: int, channels: int, length: int, kernel_size: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (batch, channels, length)
    assert tuple(weight.shape) == (channels, 1, kernel_size) and kernel_size % 2 == 1
    x, weight, bias = x.contiguous(), weight.contiguous(), bias.contiguous()
    out = torch.empty_like(x)
    rows = batch * channels
    if rows == 0 or length == 0:
        return out
    on_cpu = x.device.type == "cpu"
    block_t = min(triton.next_power_of_2(length), (1 << 16) if on_cpu else 1024)
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
    tile_rows = max(1, ((1 << 18) if on_cpu else 2048) // block_t)
    grid = (triton.cdiv(rows, tile_rows), triton.cdiv(length, block_t))
    _dwconv_kernel[grid](x, weight, bias, out, rows, channels, length,
                         KS=kernel_size, ROWS=tile_rows, BLOCK_T=block_t)
    return out
