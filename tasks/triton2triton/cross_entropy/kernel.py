"""Cross-entropy per row in Triton -- correct but slow baseline.

forward(logits, targets, rows, cols) returns
torch.nn.functional.cross_entropy(logits, targets, reduction="none") (float32, [rows]).

This version is a straightforward first kernel: it walks each row twice (the max, then the sum
of exp(x - max)) in blocks of up to 2048 columns; rows narrower than that are packed several to
a 4-warp program (a tile of 2048 elements), wider rows get one 8-warp program each. (On the CPU
interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _cross_entropy_rows(x_ptr, t_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    base = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    acc = tl.full([ROWS, BLOCK_N], float("-inf"), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        acc = tl.maximum(acc, x)
    m = tl.max(acc, axis=1)
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
        acc += tl.exp(x - m[:, None])
    safe = tl.minimum(rows_, M - 1)
    target = tl.load(t_ptr + safe)
    picked = tl.load(x_ptr + safe.to(tl.int64) * N + target)
    tl.store(out_ptr + rows_, m + tl.log(tl.sum(acc, axis=1)) - picked, mask=row_ok)


def forward(logits: torch.Tensor, targets: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    x = logits.contiguous()
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        block_n = min(triton.next_power_of_2(cols), 2048)
        per_program = max(1, 2048 // block_n)
        warps = 8 if block_n == 2048 else 4
    _cross_entropy_rows[(triton.cdiv(rows, per_program),)](x, targets, out, rows, cols, ROWS=per_program,
                                                           BLOCK_N=block_n, num_warps=warps)
    return out
