"""Embedding lookup in Triton: out[t, :] = weight[indices[t], :] (float16).

A copy bound by memory. Each program moves a [ROWS, BLOCK_D] tile: it reads ROWS ids once, then
gathers the rows with wide contiguous loads along dim. The grid's second axis splits wide rows so
a handful of tokens (decode) still spreads over many programs.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(w_ptr, idx_ptr, out_ptr, T, D,
                      ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    row_ok = rows < T
    mask = row_ok[:, None] & (cols < D)[None, :]
    ids = tl.load(idx_ptr + rows, mask=row_ok, other=0)
    vals = tl.load(w_ptr + ids[:, None] * D + cols[None, :], mask=mask)
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], vals, mask=mask)


def forward(weight: torch.Tensor, indices: torch.Tensor, tokens: int, dim: int) -> torch.Tensor:
    assert weight.ndim == 2 and weight.shape[1] == dim and indices.shape == (tokens,)
    weight = weight.contiguous()
    indices = indices.contiguous()
    out = torch.empty((tokens, dim), device=weight.device, dtype=weight.dtype)
    width = triton.next_power_of_2(dim)
    if weight.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        block_d = min(width, 1 << 16)
        rows = max(1, (1 << 20) // block_d)
        num_warps = 4
    else:
        block_d = min(width, 1024)
        rows = max(1, 4096 // block_d)
        num_warps = 4
    grid = (triton.cdiv(tokens, rows), triton.cdiv(dim, block_d))
    _embedding_kernel[grid](weight, indices, out, tokens, dim,
                            ROWS=rows, BLOCK_D=block_d, num_warps=num_warps)
    return out
