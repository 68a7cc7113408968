"""Matrix transpose in Triton -- a straightforward first baseline.

forward(x, rows, cols) returns x.t().contiguous(), a new float32 tensor of shape [cols, rows].

A tiled transpose: each 4-warp program loads one 32 x 32 tile of x along its rows and stores it
transposed into the output (tl.trans), so loads and stores both walk contiguous 32-float runs.
Tiles at the matrix's edges are masked. The programs form a flat 1-D grid, tile rows by tile
columns, so no grid dimension limit applies. (On the CPU interpreter it takes big tiles, only
so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _transpose_tiles(x_ptr, out_ptr, rows, cols, tiles_c, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    r = (pid // tiles_c).to(tl.int64) * BR + tl.arange(0, BR)
    c = (pid % tiles_c).to(tl.int64) * BC + tl.arange(0, BC)
    mask = (r < rows)[:, None] & (c < cols)[None, :]
    tile = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask)
    tl.store(out_ptr + c[:, None] * rows + r[None, :], tl.trans(tile),
             mask=(c < cols)[:, None] & (r < rows)[None, :])


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
    if rows == 0 or cols == 0:
        return out
    if x.device.type == "cpu":
        # On the CPU interpreter: big tiles, only so that the interpreter runs in reasonable time.
        bc = min(triton.next_power_of_2(cols), 1 << 16)
        br = min(triton.next_power_of_2(rows), max(1, (1 << 20) // bc))
    else:
        br = bc = 32
    tiles_c = triton.cdiv(cols, bc)
    _transpose_tiles[(triton.cdiv(rows, br) * tiles_c,)](x, out, rows, cols, tiles_c, BR=br, BC=bc,
                                                         num_warps=4)
    return out
