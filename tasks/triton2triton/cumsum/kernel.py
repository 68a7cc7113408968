"""Row-wise cumulative sum in Triton -- correct but slow baseline.

forward(x, rows, cols) returns torch.cumsum(x, dim=-1) (float32).

This version runs one row per program on the GPU with one warp and walks it in blocks of 64
columns, whatever the row length, scanning each block and carrying the running total. (On the
CPU interpreter it takes big tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl

# tl.cumsum rather than tl.associative_scan with a combine function of our own: the same scan on a
# GPU, but the interpreter runs tl.cumsum as one np.cumsum and a custom combine element by element
# in Python (minutes per config).


@triton.jit
def _cumsum_rows(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows_ = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows_ < M
    base = tl.minimum(rows_, M - 1).to(tl.int64)[:, None] * N
    carry = tl.zeros([ROWS], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(x_ptr + base + cols[None, :], mask=col_ok[None, :], other=0.0)
        scan = tl.cumsum(x, axis=1) + carry[:, None]
        tl.store(out_ptr + rows_.to(tl.int64)[:, None] * N + cols[None, :], scan, mask=row_ok[:, None] & col_ok[None, :])
        # The running total is the block's last stored sum, read back rather than reduced: Triton
        # 3.6's thread-locality pass asserts on a reduction accumulated across this loop whose
        # result is unused after it (`loopResult.hasOneUse()`).
        tl.debug_barrier()
        last = tl.minimum(start + BLOCK_N, N) - 1
        carry = tl.load(out_ptr + tl.minimum(rows_, M - 1).to(tl.int64) * N + last)


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles (a whole row, many rows per program) to keep the interpreter fast.
        block_n = min(triton.next_power_of_2(cols), 1 << 16)
        per_program, warps = max(1, (1 << 19) // block_n), 4
    else:
        per_program, block_n, warps = 1, min(triton.next_power_of_2(cols), 1024), 4
    _cumsum_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols, ROWS=per_program,
                                                    BLOCK_N=block_n, num_warps=warps)
    return out
