"""Cross-entropy per row in Triton -- one kernel.

forward(logits, targets, rows, cols) returns
torch.nn.functional.cross_entropy(logits, targets, reduction="none"), a new float32 tensor of
shape [rows] (see reference.py and README.md).

The logits are read once, one float per row written. Rows up to 16K wide are one tile (several
narrow rows per program); wider rows loop with an online max / sum of exp. The target's logit
is one gathered load per row.
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the looping path for wider rows


@triton.jit
def _cross_entropy_kernel(x_ptr, t_ptr, out_ptr, M, N,
                          ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    safe = tl.minimum(rows, M - 1)   # tail programs re-read row M-1: loads need only the column mask
    src = x_ptr + safe.to(tl.int64)[:, None] * N
    if SINGLE_TILE:
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        m = tl.max(x, axis=1)
        lse = m + tl.log(tl.sum(tl.exp(x - m[:, None]), axis=1))
    else:
        m = tl.full([ROWS], float("-inf"), tl.float32)
        s = tl.zeros([ROWS], tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
            new_m = tl.maximum(m, tl.max(x, axis=1))   # finite: every block holds one real column
            s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m[:, None]), axis=1)
            m = new_m
        lse = m + tl.log(s)
    target = tl.load(t_ptr + safe)
    picked = tl.load(x_ptr + safe.to(tl.int64) * N + target)
    tl.store(out_ptr + rows, lse - picked, mask=row_ok)


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


def forward(logits: torch.Tensor, targets: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    assert logits.dtype == torch.float32 and tuple(logits.shape) == (rows, cols)
    logits, targets = logits.contiguous(), targets.contiguous()
    out = torch.empty((rows,), dtype=torch.float32, device=logits.device)
    single, block_n, per_program, warps = _tiles(logits, cols)
    _cross_entropy_kernel[(triton.cdiv(rows, per_program),)](
        logits, targets, out, rows, cols, ROWS=per_program, BLOCK_N=block_n, SINGLE_TILE=single, num_warps=warps)
    return out
