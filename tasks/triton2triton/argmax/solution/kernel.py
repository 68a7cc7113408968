"""Argmax over rows in Triton -- one kernel.

forward(x, rows, cols) returns torch.argmax(x, dim=-1), a new int64 tensor of shape
[rows] (see reference.py and README.md).

Memory-bound: x is read once. Rows up to 16K wide are one tile (several narrow rows per
program); wider rows loop over column blocks keeping, per column slot, the best value and its
column, then pick the best slot.
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the looping path for wider rows


@triton.jit
def _argmax_kernel(x_ptr, out_ptr, M, N,
                   ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * N
    if SINGLE_TILE:
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        best = tl.argmax(x, axis=1, tie_break_left=True)
        tl.store(out_ptr + rows, best.to(tl.int64), mask=row_ok)
    else:
        # Per column slot, the best value and its (first) column; then the best slot, lowest
        # column on ties.
        best_v = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
        best_i = tl.full([ROWS, BLOCK_N], 0, tl.int64) + tl.arange(0, BLOCK_N)[None, :]
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
            better = x > best_v
            best_v = tl.where(better, x, best_v)
            best_i = tl.where(better, cols[None, :].to(tl.int64), best_i)
        row_best = tl.max(best_v, axis=1)
        cand = tl.where(best_v == row_best[:, None], best_i, N)
        tl.store(out_ptr + rows, tl.min(cand, axis=1).to(tl.int64), mask=row_ok)


def _tiles(x: torch.Tensor, N: int) -> tuple[bool, int, int, int]:
    """(single_tile, BLOCK_N, ROWS per program, num_warps) for rows of N columns."""
    width = triton.next_power_of_2(max(N, 1))
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        single = width <= (1 << 16)
        block_n = width if single else (1 << 16)
        return single, block_n, max(1, (1 << 19) // block_n), 4
    if width <= _MAX_SINGLE_TILE:
        rows = max(1, 4096 // width)
        return True, width, rows, min(16, max(4, rows * width // 512))
    return False, _LOOP_BLOCK, 1, 8


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (rows, cols)
    x = x.contiguous()
    out = torch.empty((rows,), dtype=torch.int64, device=x.device)
    single, block_n, per_program, warps = _tiles(x, cols)
    _argmax_kernel[(triton.cdiv(rows, per_program),)](
        x, out, rows, cols, ROWS=per_program, BLOCK_N=block_n, SINGLE_TILE=single, num_warps=warps)
    return out
