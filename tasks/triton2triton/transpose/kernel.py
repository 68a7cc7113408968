"""Matrix transpose in Triton -- correct but slow baseline.

forward(x, rows, cols) returns x.t().contiguous(), a new float32 tensor of shape [cols, rows].

One program per input row (on a GPU): it walks the row in 128-column chunks, reading them
coalesced but storing each element `rows` floats away from its neighbour, so every store of a
chunk touches as many memory sectors as it has elements, and long rows run serially in one program.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _transpose_rows_kernel(x_ptr, out_ptr, rows, cols,
                           ROWS: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = r < rows
    for start in range(0, cols, BLOCK_C):
        c = start + tl.arange(0, BLOCK_C).to(tl.int64)
        mask = row_ok[:, None] & (c < cols)[None, :]
        v = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask)
        tl.store(out_ptr + c[None, :] * rows + r[:, None], v, mask=mask)


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
    if rows == 0 or cols == 0:
        return out
    if x.device.type == "cpu":
        # On the CPU interpreter: many rows and wide chunks per program, only so that the
        # interpreter runs in reasonable time.
        block_c = min(triton.next_power_of_2(cols), 1 << 16)
        rows_per_program = max(1, (1 << 20) // block_c)
    else:
        block_c, rows_per_program = 128, 1
    _transpose_rows_kernel[(triton.cdiv(rows, rows_per_program),)](
        x, out, rows, cols, ROWS=rows_per_program, BLOCK_C=block_c, num_warps=4)
    return out
