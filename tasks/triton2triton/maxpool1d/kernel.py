"""1-D max pooling in Triton -- correct but slow baseline.

forward(x, batch, channels, length, kernel_size, stride, padding) returns
torch.nn.functional.max_pool1d(x, kernel_size, stride, padding) as a new float32 tensor.

This version runs one (batch, channel) row per program with one warp, walking the outputs in
blocks of 32 with a runtime loop over the window taps. (On the CPU interpreter it takes big
tiles, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _maxpool_rows(x_ptr, out_ptr, R, L, OUT_LEN, KS, stride, padding,
                  ROWS: tl.constexpr, BLOCK_O: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    for o_start in range(0, OUT_LEN, BLOCK_O):
        o = o_start + tl.arange(0, BLOCK_O)
        ok = (rows < R)[:, None] & (o < OUT_LEN)[None, :]
        m = tl.full([ROWS, BLOCK_O], float("-inf"), tl.float32)
        for j in range(0, KS):
            p = o * stride - padding + j
            inside = ok & ((p >= 0) & (p < L))[None, :]
            v = tl.load(x_ptr + rows[:, None] * L + p[None, :], mask=inside, other=float("-inf"))
            m = tl.maximum(m, v)
        tl.store(out_ptr + rows[:, None] * OUT_LEN + o[None, :], m, mask=ok)


def forward(x: torch.Tensor, batch: int, channels: int, length: int,
            kernel_size: int, stride: int, padding: int) -> torch.Tensor:
    x = x.contiguous()
    rows = batch * channels
    out_len = (length + 2 * padding - kernel_size) // stride + 1
    out = torch.empty((batch, channels, out_len), dtype=torch.float32, device=x.device)
    if rows == 0 or out_len <= 0:
        return out
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so use few,
        # large tiles to keep the interpreter fast.
        block_o = min(triton.next_power_of_2(out_len), 1 << 16)
        per_program, warps = max(1, (1 << 18) // block_o), 4
    else:
        per_program, block_o, warps = 1, min(triton.next_power_of_2(out_len), 1024), 4
    _maxpool_rows[(triton.cdiv(rows, per_program),)](x, out, rows, length, out_len, kernel_size,
                                                     stride, padding, ROWS=per_program,
                                                     BLOCK_O=block_o, num_warps=warps)
    return out
