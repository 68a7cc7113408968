"""GroupNorm in Triton -- correct but slow baseline.

forward(x, weight, bias, batch, channels, hw, groups, eps) returns
torch.nn.functional.group_norm(x, groups, weight, bias, eps) (float32).

A (batch, group) pair is one contiguous row of (channels / groups) * hw elements. This version
runs one such row per program on the GPU and walks it in blocks of 256 elements, three times
(sum, centred sum of squares, output), whatever its size: one huge group runs on one program.
(On the CPU interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _groupnorm_rows(x_ptr, w_ptr, b_ptr, out_ptr, M, N, HW, G, eps, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    safe = tl.minimum(rows_, M - 1)
    base = safe.to(tl.int64)[:, None] * N
    ch0 = (safe % G) * (N // HW)     # first channel of the row's group
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=0.0)
    mean = tl.sum(acc, axis=1) / N
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(x_ptr + base + cols[None, :], mask=col_ok[None, :], other=0.0)
        d = tl.where(col_ok[None, :], x - mean[:, None], 0.0)
        acc += d * d
    var = tl.sum(acc, axis=1) / N
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(x_ptr + base + cols[None, :], mask=col_ok[None, :], other=0.0)
        ch = ch0[:, None] + (cols // HW)[None, :]
        w = tl.load(w_ptr + ch, mask=col_ok[None, :], other=0.0)
        b = tl.load(b_ptr + ch, mask=col_ok[None, :], other=0.0)
        out = (x - mean[:, None]) / tl.sqrt(var[:, None] + eps) * w + b
        tl.store(out_ptr + rows_.to(tl.int64)[:, None] * N + cols[None, :], out, mask=row_ok[:, None] & col_ok[None, :])


def forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, batch: int, channels: int, hw: int,
            groups: int, eps: float) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    rows, cols = batch * groups, (channels // groups) * hw
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        per_program, block_n, warps = 1, 256, 4
    _groupnorm_rows[(triton.cdiv(rows, per_program),)](x, weight, bias, out, rows, cols, hw, groups, float(eps),
                                                       ROWS=per_program, BLOCK_N=block_n, num_warps=warps)
    return out
