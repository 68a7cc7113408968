"""Row-wise cumulative sum in Triton -- one kernel.

forward(x, rows, cols) returns torch.cumsum(x, dim=-1) as a new float32 tensor of x's
shape (see reference.py and README.md).

Memory-bound: x read once, y written once. Rows up to 16K wide are one tile scanned with
tl.cumsum (several narrow rows per program); wider rows are scanned block by block,
each block offset by the running total of the blocks before it.
"""
import torch
import triton
import triton.language as tl

# tl.cumsum rather than tl.associative_scan with a combine function of our own: the same scan on a
# GPU, but the interpreter runs tl.cumsum as one np.cumsum and a custom combine element by element
# in Python (minutes per config).

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the looping path for wider rows


@triton.jit
def _cumsum_kernel(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * N
    dst = out_ptr + rows.to(tl.int64)[:, None] * N
    carry = tl.zeros([ROWS], tl.float32)
    # SINGLE_TILE: the loop runs once (BLOCK_N >= N). Otherwise each column block is scanned and
    # offset by the running total of the blocks before it.
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
        scan = tl.cumsum(x, axis=1)
        tl.store(dst + cols[None, :], scan + carry[:, None], mask=row_ok[:, None] & col_ok[None, :])
        # The running total is the block's last stored sum, read back rather than reduced: Triton
        # 3.6's thread-locality pass asserts on a reduction accumulated across this loop whose
        # result is unused after it (`loopResult.hasOneUse()`).
        tl.debug_barrier()
        last = tl.minimum(start + BLOCK_N, N) - 1
        carry = tl.load(out_ptr + tl.minimum(rows, M - 1).to(tl.int64) * N + last)


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
    out = torch.empty_like(x)
    single, block_n, per_program, warps = _tiles(x, cols)
    _cumsum_kernel[(triton.cdiv(rows, per_program),)](
        x, out, rows, cols, ROWS=per_program, BLOCK_N=block_n, SINGLE_TILE=single, num_warps=warps)
    return out
