"""Top-k along rows in Triton (k <= 16): sorted values and int64 indices, ties to the lower column.

Rows up to 16K wide are one register tile (several narrow rows per program): k rounds of a row
max, each taking the first column that holds it and masking it out, so x is read once. Wider rows
take k passes over the row, each finding the best (value, column) that ranks after the previous
pick; for k <= 16 the repeated reads of a row mostly hit in L2.
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 4096         # column block of the k-pass path for wider rows


@triton.jit
def _topk_tile(x_ptr, v_ptr, i_ptr, M, N, K, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1)[:, None] * N
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
    for r in range(0, K):
        best = tl.max(x, axis=1)
        first = tl.min(tl.where(x == best[:, None], cols[None, :], BLOCK_N), axis=1)
        tl.store(v_ptr + rows * K + r, best, mask=row_ok)
        tl.store(i_ptr + rows * K + r, first.to(tl.int64), mask=row_ok)
        x = tl.where(cols[None, :] == first[:, None], float("-inf"), x)


@triton.jit
def _topk_passes(x_ptr, v_ptr, i_ptr, M, N, K, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    src = x_ptr + tl.minimum(rows, M - 1)[:, None] * N
    prev_v = tl.full([ROWS], float("inf"), tl.float32)
    prev_i = tl.full([ROWS], -1, tl.int64)
    for r in range(0, K):
        # Per column slot, the best eligible (value, column); eligible = ranks after the last pick.
        best_v = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
        best_i = tl.full([ROWS, BLOCK_N], 0, tl.int64) + N
        for start in range(0, N, BLOCK_N):
            c = (start + tl.arange(0, BLOCK_N)).to(tl.int64)
            x = tl.load(src + c[None, :], mask=(c < N)[None, :], other=float("-inf"))
            after = (x < prev_v[:, None]) | ((x == prev_v[:, None]) & (c[None, :] > prev_i[:, None]))
            better = after & (c < N)[None, :] & (x > best_v)   # columns grow: strict > keeps the first
            best_v = tl.where(better, x, best_v)
            best_i = tl.where(better, c[None, :], best_i)
        top = tl.max(best_v, axis=1)
        first = tl.min(tl.where(best_v == top[:, None], best_i, N), axis=1)
        tl.store(v_ptr + rows * K + r, top, mask=row_ok)
        tl.store(i_ptr + rows * K + r, first, mask=row_ok)
        prev_v = top
        prev_i = first


def forward(x: torch.Tensor, rows: int, cols: int, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.dtype == torch.float32 and tuple(x.shape) == (rows, cols) and 1 <= k <= min(16, cols)
    x = x.contiguous()
    values = torch.empty((rows, k), dtype=torch.float32, device=x.device)
    indices = torch.empty((rows, k), dtype=torch.int64, device=x.device)
    width = triton.next_power_of_2(cols)
    on_cpu = x.device.type == "cpu"
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
    max_tile = (1 << 16) if on_cpu else _MAX_SINGLE_TILE
    if width <= max_tile:
        per_program = max(1, ((1 << 19) if on_cpu else 4096) // width)
        warps = 4 if on_cpu else min(16, max(4, per_program * width // 512))
        _topk_tile[(triton.cdiv(rows, per_program),)](x, values, indices, rows, cols, k,
                                                      ROWS=per_program, BLOCK_N=width, num_warps=warps)
    else:
        block = (1 << 16) if on_cpu else _LOOP_BLOCK
        _topk_passes[(rows,)](x, values, indices, rows, cols, k, ROWS=1, BLOCK_N=block, num_warps=8)
    return values, indices
