"""1-D max pooling in Triton -- a straightforward first baseline.

forward(x, batch, channels, length, kernel_size, stride, padding) returns
torch.nn.functional.max_pool1d(x, kernel_size, stride, padding) as a new float32 tensor.

The output is treated as one flat array of batch * channels * out_len elements: each 4-warp
program computes 1024 consecutive outputs, splitting each flat index into its (batch, channel)
row and output position, and takes the maximum over a runtime loop of kernel_size window taps
(padding and positions outside the row load as -inf). (On the CPU interpreter it takes big
blocks, only so that the interpreter runs in reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _maxpool_flat(x_ptr, out_ptr, TOTAL, L, OUT_LEN, KS, stride, padding, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < TOTAL
    row = offs // OUT_LEN
    o = offs % OUT_LEN
    src = x_ptr + row.to(tl.int64) * L
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for j in range(0, KS):
        p = o * stride - padding + j
        v = tl.load(src + p, mask=ok & (p >= 0) & (p < L), other=float("-inf"))
        m = tl.maximum(m, v)
    tl.store(out_ptr + offs, m, mask=ok)


def forward(x: torch.Tensor, batch: int, channels: int, length: int,
            kernel_size: int, stride: int, padding: int) -> torch.Tensor:
    x = x.contiguous()
    out_len = (length + 2 * padding - kernel_size) // stride + 1
    out = torch.empty((batch, channels, max(out_len, 0)), dtype=torch.float32, device=x.device)
    total = batch * channels * max(out_len, 0)
    if total == 0:
        return out
    # On the CPU interpreter: big blocks, only so that the interpreter runs in reasonable time.
    block = (1 << 18) if x.device.type == "cpu" else 1024
    _maxpool_flat[(triton.cdiv(total, block),)](x, out, total, length, out_len, kernel_size, stride, padding,
                                                BLOCK=block, num_warps=4)
    return out
