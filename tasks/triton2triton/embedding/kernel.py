"""Embedding lookup in Triton -- correct but slow baseline.

forward(weight, indices, tokens, dim) returns weight.index_select(0, indices) as a new float16
tensor [tokens, dim].

One program per token, walking the row in 64-wide column blocks: few bytes per load, many tiny
programs, and a row id re-read for every block.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_row_kernel(w_ptr, idx_ptr, out_ptr, T, D, ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        mask = (rows < T)[:, None] & (cols < D)[None, :]
        ids = tl.load(idx_ptr + rows, mask=rows < T, other=0)
        vals = tl.load(w_ptr + ids[:, None] * D + cols[None, :], mask=mask)
        tl.store(out_ptr + rows[:, None].to(tl.int64) * D + cols[None, :], vals, mask=mask)


def forward(weight: torch.Tensor, indices: torch.Tensor, tokens: int, dim: int) -> torch.Tensor:
    weight = weight.contiguous()
    indices = indices.contiguous()
    out = torch.empty((tokens, dim), device=weight.device, dtype=weight.dtype)
    if weight.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: whole rows, many per program.
        block_d = triton.next_power_of_2(dim)
        rows = max(1, (1 << 20) // block_d)
    else:
        rows, block_d = 1, 64
    _embedding_row_kernel[(triton.cdiv(tokens, rows),)](weight, indices, out, tokens, dim, ROWS=rows, BLOCK_D=block_d)
    return out
