"""GroupNorm in Triton -- one fused kernel.

forward(x, weight, bias, batch, channels, hw, groups, eps) returns
torch.nn.functional.group_norm(x, groups, weight, bias, eps) (float32).

A (batch, group) pair is one contiguous row of (channels / groups) * hw elements: a LayerNorm
over batch * groups rows, with a per-channel affine. A row up to 16K wide is held in registers;
wider rows loop three times over column blocks (sum, centred sum of squares, output).
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the looping path for wider rows


@triton.jit
def _groupnorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, HW, G, eps,
                      ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    # A row is one (batch, group): N = (channels / groups) * HW contiguous elements.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    safe = tl.minimum(rows, M - 1)   # tail programs re-read row M-1: loads need only the column mask
    src = x_ptr + safe.to(tl.int64)[:, None] * N
    dst = out_ptr + rows.to(tl.int64)[:, None] * N
    ch0 = (safe % G) * (N // HW)     # first channel of the row's group
    if SINGLE_TILE:
        cols = tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
        mean = tl.sum(x, axis=1) / N
        d = tl.where(col_ok[None, :], x - mean[:, None], 0.0)
        rstd = tl.rsqrt(tl.sum(d * d, axis=1) / N + eps)
        ch = ch0[:, None] + (cols // HW)[None, :]
        w = tl.load(w_ptr + ch, mask=col_ok[None, :], other=0.0)
        b = tl.load(b_ptr + ch, mask=col_ok[None, :], other=0.0)
        tl.store(dst + cols[None, :], d * rstd[:, None] * w + b, mask=row_ok[:, None] & col_ok[None, :])
    else:
        acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            acc += tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=0.0)
        mean = tl.sum(acc, axis=1) / N
        acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            col_ok = cols < N
            x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
            d = tl.where(col_ok[None, :], x - mean[:, None], 0.0)
            acc += d * d
        rstd = tl.rsqrt(tl.sum(acc, axis=1) / N + eps)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            col_ok = cols < N
            x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
            ch = ch0[:, None] + (cols // HW)[None, :]
            w = tl.load(w_ptr + ch, mask=col_ok[None, :], other=0.0)
            b = tl.load(b_ptr + ch, mask=col_ok[None, :], other=0.0)
            tl.store(dst + cols[None, :], (x - mean[:, None]) * rstd[:, None] * w + b,
                     mask=row_ok[:, None] & col_ok[None, :])


def _tiles(x: torch.Tensor, N: int) -> tuple[bool, int, int, int]:
    """(single_tile, BLOCK_N, ROWS per program, num_warps) for rows of N columns."""
    width = triton.next_power_of_2(max(N, 1))
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        single = width <= (1 << 16)
        block_n = width if single else (1 << 16)
        return single, block_n, max(1, (1 << 19) // block_n), 4
    if width <= _MAX_SINGLE_TILE:
        rows = max(1, 4096 // width)
        return True, width, rows, min(16, max(4, rows * width // 512))
    return False, _LOOP_BLOCK, 1, 8


def forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, batch: int, channels: int, hw: int, groups: int, eps: float) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (batch, channels, hw) and channels % groups == 0
    x, weight, bias = x.contiguous(), weight.contiguous(), bias.contiguous()
    out = torch.empty_like(x)
    rows, cols = batch * groups, (channels // groups) * hw
    single, block_n, per_program, warps = _tiles(x, cols)
    _groupnorm_kernel[(triton.cdiv(rows, per_program),)](
        x, weight, bias, out, rows, cols, hw, groups, float(eps),
        ROWS=per_program, BLOCK_N=block_n, SINGLE_TILE=single, num_warps=warps)
    return out
