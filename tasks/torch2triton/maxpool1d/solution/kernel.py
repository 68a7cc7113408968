"""1-D max pooling in Triton: out[r, o] = max(x[r, o * stride - padding + j], j < kernel_size).

Memory-bound. A program owns [ROWS, BLOCK_O] outputs (rows being (batch, channel) pairs, so short
rows still make wide tiles); the window taps unroll (KS is a compile-time constant) and
neighbouring windows overlap, so most tap loads hit in cache. Padding loads as -inf.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _maxpool_kernel(x_ptr, out_ptr, R, L, OUT_LEN, stride, padding,
                    KS: tl.constexpr, ROWS: tl.constexpr, BLOCK_O: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    o = tl.program_id(1) * BLOCK_O + tl.arange(0, BLOCK_O)
    ok = (rows < R)[:, None] & (o < OUT_LEN)[None, :]
    start = o * stride - padding
    m = tl.full([ROWS, BLOCK_O], float("-inf"), tl.float32)
    for j in tl.static_range(KS):
        p = start + j
        inside = ok & ((p >= 0) & (p < L))[None, :]
        v = tl.load(x_ptr + rows[:, None] * L + p[None, :], mask=inside, other=float("-inf"))
        m = tl.maximum(m, v)
    tl.store(out_ptr + rows[:, None] * OUT_LEN + o[None, :], m, mask=ok)


def forward(x: torch.Tensor, batch: int, channels: int, length: int,
            kernel_size: int, stride: int, padding: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (batch, channels, length)
    x = x.contiguous()
    rows = batch * channels
    out_len = (length + 2 * padding - kernel_size) // stride + 1
    out = torch.empty((batch, channels, out_len), dtype=torch.float32, device=x.device)
    if rows == 0 or out_len <= 0:
        return out
    block_o = min(triton.next_power_of_2(out_len), (1 << 16) if x.device.type == "cpu" else 1024)
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
    budget = (1 << 18) if x.device.type == "cpu" else 2048
    tile_rows = max(1, budget // block_o)
    grid = (triton.cdiv(rows, tile_rows), triton.cdiv(out_len, block_o))
    _maxpool_kernel[grid](x, out, rows, length, out_len, stride, padding,
                          KS=kernel_size, ROWS=tile_rows, BLOCK_O=block_o)
    return out
