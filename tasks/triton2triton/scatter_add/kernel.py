"""Scatter-add of rows in Triton -- correct but slow baseline.

forward(x, index, src, rows, n, dim) returns x.index_add(0, index, src): out = x.clone(), then
out[index[i], :] += src[i, :] for every i (float32).

This version copies x with single-warp programs of 128 elements, then launches one single-warp
program per src row, which walks the row in blocks of 128 columns with tl.atomic_add (repeated
indices are safe). Narrow rows leave most of each program idle. (On the CPU interpreter it takes
big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(x_ptr, out_ptr, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def _scatter_rows(idx_ptr, src_ptr, out_ptr, N, D, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < N
    dst = tl.load(idx_ptr + rows, mask=row_ok, other=0)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = row_ok[:, None] & (cols < D)[None, :]
        vals = tl.load(src_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.0)
        tl.atomic_add(out_ptr + dst[:, None] * D + cols[None, :], vals, mask=mask)


def forward(x: torch.Tensor, index: torch.Tensor, src: torch.Tensor,
            rows: int, n: int, dim: int) -> torch.Tensor:
    x, index, src = x.contiguous(), index.contiguous(), src.contiguous()
    out = torch.empty_like(x)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles to keep the interpreter fast.
        copy_block = 1 << 20
        block_d = min(triton.next_power_of_2(dim), 1 << 16)
        per_program = max(1, (1 << 18) // block_d)
    else:
        copy_block, block_d, per_program = 128, 128, 1
    total = rows * dim
    _copy_kernel[(triton.cdiv(total, copy_block),)](x, out, total, BLOCK=copy_block, num_warps=1)
    if n > 0:   # launched after the copy on the same stream, so the adds see it
        _scatter_rows[(triton.cdiv(n, per_program),)](index, src, out, n, dim,
                                                      ROWS=per_program, BLOCK_D=block_d, num_warps=1)
    return out
