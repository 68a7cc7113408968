"""FP8 (e4m3fn) quantization in Triton, one float32 scale per row:
scale = max(absmax(x[r, :]), 1e-12) / 448; q = e4m3fn(clamp(x / scale, -448, 448)).

A program owns ROWS whole rows (BLOCK_C >= cols): it reduces each row's absmax and writes q in one
pass over registers. The divisions are IEEE (tl.math.div_rn; Triton's `/` is an approximate
division on GPUs). The e4m3fn bits are computed by hand, round to nearest, ties to even, and stored
through a uint8 view of q: the interpreter has no float8 arithmetic, and the bits are the same.
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
    s = tl.math.div_rn(tl.maximum(absmax, 1e-12), tl.full(absmax.shape, 448.0, tl.float32))
    y = tl.minimum(tl.maximum(tl.math.div_rn(x, s[:, None]), -448.0), 448.0)
    bits = y.to(tl.int32, bitcast=True)
    sign = (bits >> 24) & 0x80
    mag = bits & 0x7FFFFFFF
    # below 2^-6: subnormal steps of 2^-9, the code is |y| * 512 rounded half to even
    t = tl.abs(y) * 512.0
    r = tl.floor(t)
    f = t - r
    odd = (r - 2.0 * tl.floor(r * 0.5)) == 1.0
    r = tl.where((f > 0.5) | ((f == 0.5) & odd), r + 1.0, r)
    sub = r.to(tl.int32)
    # normal: the exponent and the top 3 mantissa bits, rounded on the 20 bits below them
    e = (mag >> 23) - 127
    keep = (mag >> 20) & 7
    rest = mag & 0xFFFFF
    up = (rest > 0x80000) | ((rest == 0x80000) & ((keep & 1) == 1))
    keep = keep + up.to(tl.int32)
    e = tl.where(keep == 8, e + 1, e)
    keep = tl.where(keep == 8, 0, keep)
    normal = ((e + 7) << 3) | keep
    code = tl.where(mag < 0x3C800000, sub, normal) | sign
    tl.store(q_ptr + offs, code.to(tl.uint8), mask=mask)
    tl.store(scale_ptr + rows, s, mask=row_ok)


def forward(x: torch.Tensor, rows: int, cols: int):
    assert x.shape == (rows, cols)
    x = x.contiguous()
    q = torch.empty((rows, cols), device=x.device, dtype=torch.float8_e4m3fn)
    scale = torch.empty((rows,), device=x.device, dtype=torch.float32)
    block_c = triton.next_power_of_2(cols)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        tile_rows, num_warps = max(1, (1 << 18) // block_c), 4
    else:
        tile_rows = max(1, 2048 // block_c)
        num_warps = 4 if block_c <= 2048 else 8
    _quantize_kernel[(triton.cdiv(rows, tile_rows),)](x, q.view(torch.uint8), scale, rows, cols, ROWS=tile_rows,
                                                      BLOCK_C=block_c, num_warps=num_warps)
    return q, scale
