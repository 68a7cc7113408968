"""Int8 dequantization in Triton: out[r, c] = float16(float32(q[r, c]) * scale[r]).

Bound by memory (1 byte in, 2 out per element). A program handles a [ROWS, BLOCK_C] tile with
contiguous loads along the row and one scale load per row.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _dequant_kernel(q_ptr, scale_ptr, out_ptr, R, C, ROWS: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    row_ok = rows < R
    mask = row_ok[:, None] & (cols < C)[None, :]
    offs = rows[:, None] * C + cols[None, :]
    s = tl.load(scale_ptr + rows, mask=row_ok, other=0.0)
    q = tl.load(q_ptr + offs, mask=mask, other=0).to(tl.float32)
    tl.store(out_ptr + offs, (q * s[:, None]).to(tl.float16), mask=mask)


def forward(q: torch.Tensor, scale: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    assert q.shape == (rows, cols) and scale.shape == (rows,)
    q, scale = q.contiguous(), scale.contiguous()
    out = torch.empty((rows, cols), device=q.device, dtype=torch.float16)
    block_c = triton.next_power_of_2(cols)
    if q.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        tile_rows = max(1, (1 << 18) // block_c)
    else:
        block_c = min(block_c, 1024)
        tile_rows = max(1, 4096 // block_c)
    grid = (triton.cdiv(rows, tile_rows), triton.cdiv(cols, block_c))
    _dequant_kernel[grid](q, scale, out, rows, cols, ROWS=tile_rows, BLOCK_C=block_c)
    return out
