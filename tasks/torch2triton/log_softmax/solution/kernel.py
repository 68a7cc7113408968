"""Log-softmax in Triton -- one kernel.

forward(x, rows, cols) returns torch.log_softmax(x, dim=-1) (float32).

A row up to 16K wide is held in registers (read once); several narrow rows share a program.
Wider rows take two loops over column blocks: an online max / sum-of-exp (each column block
rescales the running sum to the new max), then the output.
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the looping path for wider rows


@triton.jit
def _log_softmax_kernel(x_ptr, out_ptr, M, N,
                        ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * N
    dst = out_ptr + rows.to(tl.int64)[:, None] * N
    if SINGLE_TILE:
        cols = tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=float("-inf"))
        m = tl.max(x, axis=1)
        shift = m + tl.log(tl.sum(tl.exp(x - m[:, None]), axis=1))
        tl.store(dst + cols[None, :], x - shift[:, None], mask=row_ok[:, None] & col_ok[None, :])
    else:
        m = tl.full([ROWS], float("-inf"), tl.float32)
        s = tl.zeros([ROWS], tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
            new_m = tl.maximum(m, tl.max(x, axis=1))   # finite: every block holds one real column
            s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m[:, None]), axis=1)
            m = new_m
        shift = m + tl.log(s)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            col_ok = cols < N
            x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
            tl.store(dst + cols[None, :], x - shift[:, None], mask=row_ok[:, None] & col_ok[None, :])


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
    _log_softmax_kernel[(triton.cdiv(rows, per_program),)](
        x, out, rows, cols, ROWS=per_program, BLOCK_N=block_n, SINGLE_TILE=single, num_warps=warps)
    return out
