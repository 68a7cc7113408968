"""Embedding lookup in Triton -- a straightforward first baseline.

forward(weight, indices, tokens, dim) returns weight.index_select(0, indices) as a new float16
tensor [tokens, dim].

Each 4-warp program copies whole rows for a group of tokens: it reads the group's ids once, then
walks the rows in blocks of BLOCK = next_power_of_2(dim) columns, capped at 1024, gathering from
the table and storing contiguously. Rows narrower than 1024 columns are packed several tokens to
a program (1024 // BLOCK tokens). (On the CPU interpreter it takes big tiles, only so that the
interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_rows(w_ptr, idx_ptr, out_ptr, T, D, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < T
    ids = tl.load(idx_ptr + rows, mask=row_ok, other=0)
    src = w_ptr + ids[:, None] * D
    dst = out_ptr + rows[:, None] * D
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = row_ok[:, None] & (cols < D)[None, :]
        tl.store(dst + cols[None, :], tl.load(src + cols[None, :], mask=mask), mask=mask)


def forward(weight: torch.Tensor, indices: torch.Tensor, tokens: int, dim: int) -> torch.Tensor:
    weight = weight.contiguous()
    indices = indices.contiguous()
    out = torch.empty((tokens, dim), device=weight.device, dtype=weight.dtype)
    if tokens == 0 or dim == 0:
        return out
    if weight.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: whole rows, many per program.
        block_d = min(triton.next_power_of_2(dim), 1 << 16)
        rows = max(1, (1 << 20) // block_d)
    else:
        block_d = min(triton.next_power_of_2(dim), 1024)
        rows = max(1, 1024 // block_d)
    _embedding_rows[(triton.cdiv(tokens, rows),)](weight, indices, out, tokens, dim,
                                                  ROWS=rows, BLOCK_D=block_d, num_warps=4)
    return out
