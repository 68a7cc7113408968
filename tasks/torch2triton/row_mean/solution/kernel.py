"""Row mean in Triton -- one kernel.

forward(x, rows, cols) returns x.mean(dim=-1), a new float32 tensor of shape [rows]
(see reference.py and README.md).

Memory-bound: x is read once. Rows up to 16K wide are one tile (several narrow rows per
program); wider rows loop over column blocks into a register accumulator.
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the looping path for wider rows


@triton.jit
def _row_mean_kernel(x_ptr, out_ptr, M, N,
                     ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * N
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    # SINGLE_TILE: the loop runs once (BLOCK_N >= N); kept as a constexpr for symmetry.
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1) / N, mask=row_ok)


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
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
    single, block_n, per_program, warps = _tiles(x, cols)
    _row_mean_kernel[(triton.cdiv(rows, per_program),)](
        x, out, rows, cols, ROWS=per_program, BLOCK_N=block_n, SINGLE_TILE=single, num_warps=warps)
    return out
