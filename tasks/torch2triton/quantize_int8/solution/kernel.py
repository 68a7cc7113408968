"""Int8 quantization in Triton, one float32 scale per row:
scale = max(absmax(x[r, :]), 1e-8) / 127; q = clamp(round_half_even(x / scale), -127, 127).

A program owns ROWS whole rows (BLOCK_C >= cols): it reduces each row's absmax and writes q in one
pass over registers. The divisions are IEEE (tl.math.div_rn; Triton's `/` is an approximate
division on GPUs) and the rounding is half to even, written out with floor because the
interpreter has no rint, so q matches torch.round bit for bit.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _quantize_kernel(x_ptr, q_ptr, scale_ptr, R, C, ROWS: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_C)
    row_ok = rows < R
    mask = row_ok[:, None] & (cols < C)[None, :]
    offs = rows[:, None] * C + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    absmax = tl.max(tl.abs(x), axis=1)
    s = tl.math.div_rn(tl.maximum(absmax, 1e-8), tl.full(absmax.shape, 127.0, tl.float32))
    y = tl.math.div_rn(x, s[:, None])
    r = tl.floor(y)
    f = y - r                                   # exact for |y| < 2**23
    odd = (r - 2.0 * tl.floor(r * 0.5)) == 1.0
    r = tl.where((f > 0.5) | ((f == 0.5) & odd), r + 1.0, r)
    r = tl.minimum(tl.maximum(r, -127.0), 127.0)
    tl.store(q_ptr + offs, r.to(tl.int8), mask=mask)
    tl.store(scale_ptr + rows, s, mask=row_ok)


def forward(x: torch.Tensor, rows: int, cols: int):
    assert x.shape == (rows, cols)
    x = x.contiguous()
    q = torch.empty((rows, cols), device=x.device, dtype=torch.int8)
    scale = torch.empty((rows,), device=x.device, dtype=torch.float32)
    block_c = triton.next_power_of_2(cols)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        tile_rows, num_warps = max(1, (1 << 18) // block_c), 4
    else:
        tile_rows = max(1, 2048 // block_c)
        num_warps = 4 if block_c <= 2048 else 8
    _quantize_kernel[(triton.cdiv(rows, tile_rows),)](x, q, scale, rows, cols, ROWS=tile_rows,
                                                      BLOCK_C=block_c, num_warps=num_warps)
    return q, scale
