"""Depthwise 1-D convolution in Triton -- correct but slow baseline.

forward(x, weight, bias, batch, channels, length, kernel_size) returns
torch.nn.functional.conv1d(x, weight, bias, padding=kernel_size // 2, groups=channels).

This version runs one (batch, channel) row per program with one warp, walking the row in blocks
of 32 outputs with a runtime loop over the taps that reloads each weight per block. (On the CPU
interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _dwconv_rows(x_ptr, w_ptr, b_ptr, out_ptr, R, C, L, KS,
                 ROWS: tl.constexpr, BLOCK_T: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < R
    ch = rows % C
    for t_start in range(0, L, BLOCK_T):
        t = t_start + tl.arange(0, BLOCK_T)
        ok = row_ok[:, None] & (t < L)[None, :]
        acc = tl.zeros([ROWS, BLOCK_T], dtype=tl.float32) + tl.load(b_ptr + ch, mask=row_ok, other=0.0)[:, None]
        for j in range(0, KS):
            p = t + j - KS // 2
            inside = ok & ((p >= 0) & (p < L))[None, :]
            v = tl.load(x_ptr + rows[:, None] * L + p[None, :], mask=inside, other=0.0)
            w = tl.load(w_ptr + ch * KS + j, mask=row_ok, other=0.0)
            acc += w[:, None] * v
        tl.store(out_ptr + rows[:, None] * L + t[None, :], acc, mask=ok)


def forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
            batch: int, channels: int, length: int, kernel_size: int) -> torch.Tensor:
    x, weight, bias = x.contiguous(), weight.contiguous(), bias.contiguous()
    out = torch.empty_like(x)
    rows = batch * channels
    if rows == 0 or length == 0:
        return out
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles to keep the interpreter fast.
        block_t = min(triton.next_power_of_2(length), 1 << 16)
        per_program, warps = max(1, (1 << 18) // block_t), 4
    else:
        per_program, block_t, warps = 1, min(triton.next_power_of_2(length), 1024), 4
    _dwconv_rows[(triton.cdiv(rows, per_program),)](x, weight, bias, out, rows, channels, length,
                                                    kernel_size, ROWS=per_program, BLOCK_T=block_t,
                                                    num_warps=warps)
    return out
