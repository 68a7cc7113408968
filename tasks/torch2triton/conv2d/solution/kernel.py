"""3x3 convolution, stride 1, padding 1, with bias, float32 NCHW, in Triton (small channel counts).

Direct convolution as an outer-product accumulation (IEEE float32 FMAs, no im2col buffer): each
program computes a [BLOCK_CO, BLOCK_P] tile, BLOCK_CO output channels by BLOCK_P consecutive
pixels of one image. For every input channel and each of the 9 taps it loads the shifted input
row segment once (masked to zero outside the image) and the BLOCK_CO weights of that tap, and
adds their outer product; each input value is reused for all the output channels of the tile.
The output is written once, in NCHW order (contiguous along the pixels).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _conv3x3_kernel(x_ptr, w_ptr, b_ptr, out_ptr, cin, cout, H, W, tiles_p, tiles_co,
                    BLOCK_CO: tl.constexpr, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0)
    tile_p = pid % tiles_p
    tile_co = (pid // tiles_p) % tiles_co
    b = (pid // (tiles_p * tiles_co)).to(tl.int64)
    plane = H * W
    p = tile_p.to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P)
    p_ok = p < plane
    oy = p // W
    ox = p % W
    co = tile_co * BLOCK_CO + tl.arange(0, BLOCK_CO)
    co_ok = co < cout
    acc = tl.zeros([BLOCK_CO, BLOCK_P], tl.float32) + \
        tl.load(b_ptr + co, mask=co_ok, other=0.0)[:, None]
    for ci in range(0, cin):
        x_base = x_ptr + (b * cin + ci) * plane
        w_base = w_ptr + (co * cin + ci) * 9
        for i in tl.static_range(3):
            iy = oy + (i - 1)
            row_ok = p_ok & (iy >= 0) & (iy < H)
            for k in tl.static_range(3):
                ix = ox + (k - 1)
                v = tl.load(x_base + iy * W + ix, mask=row_ok & (ix >= 0) & (ix < W), other=0.0)
                w = tl.load(w_base + (i * 3 + k), mask=co_ok, other=0.0)
                acc += w[:, None] * v[None, :]
    out = out_ptr + (b * cout + co[:, None]) * plane + p[None, :]
    tl.store(out, acc, mask=co_ok[:, None] & p_ok[None, :])


def forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
            batch: int, cin: int, cout: int, height: int, width: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (batch, cin, height, width)
    assert tuple(weight.shape) == (cout, cin, 3, 3) and tuple(bias.shape) == (cout,)
    x, weight, bias = x.contiguous(), weight.contiguous(), bias.contiguous()
    out = torch.empty((batch, cout, height, width), device=x.device, dtype=torch.float32)
    if out.numel() == 0:
        return out
    block_co = min(triton.next_power_of_2(cout), 32)
    plane = height * width
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        block_p = min(triton.next_power_of_2(plane), 1 << 15)
    else:
        # 16 outputs per thread at 4 warps (block_co = 32); narrower cout gets more pixels.
        block_p = min(triton.next_power_of_2(plane), 2048 // block_co * 2)
    tiles_p = triton.cdiv(plane, block_p)
    tiles_co = triton.cdiv(cout, block_co)
    grid = (batch * tiles_co * tiles_p,)
    _conv3x3_kernel[grid](x, weight, bias, out, cin, cout, height, width, tiles_p, tiles_co,
                          BLOCK_CO=block_co, BLOCK_P=block_p, num_warps=4)
    return out
