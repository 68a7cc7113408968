"""Scatter-add of rows in Triton: out = x.clone(); out[index[i], :] += src[i, :] (float32).

Two kernels: a flat copy of x into out, then [ROWS, BLOCK_D] tiles of src added into out with
tl.atomic_add, which makes repeated indices safe without sorting them. Launched in order on one
stream, so the adds see the copy.

The adds are relaxed atomics: nothing reads them back and no other memory is ordered against them,
and Triton's default (acq_rel) fences every one, which made many small ones (dim 3) slower than
PyTorch. Both kernels size their tiles from the shape so that small inputs still spread over a
couple of hundred programs, and narrow rows pack many rows into one tile.
"""
import torch
import triton
import triton.language as tl

_TARGET_PROGRAMS = 264        # ~2 per SM on an H100 (132 SMs)


@triton.jit
def _copy_kernel(x_ptr, out_ptr, total, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def _scatter_add_kernel(idx_ptr, src_ptr, out_ptr, N, D,
                        ROWS: tl.constexpr, BLOCK_D: tl.constexpr, WIDE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    if WIDE:
        rows = rows.to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    row_ok = rows < N
    mask = row_ok[:, None] & (cols < D)[None, :]
    dst = tl.load(idx_ptr + rows, mask=row_ok, other=0)
    if not WIDE:
        dst = dst.to(tl.int32)
    vals = tl.load(src_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + dst[:, None] * D + cols[None, :], vals, mask=mask, sem="relaxed")


def forward(x: torch.Tensor, index: torch.Tensor, src: torch.Tensor,
            rows: int, n: int, dim: int) -> torch.Tensor:
    assert x.shape == (rows, dim) and src.shape == (n, dim) and index.shape == (n,)
    assert x.is_contiguous() and index.is_contiguous() and src.is_contiguous()
    out = torch.empty_like(x)
    total = rows * dim
    if total == 0:
        return out
    wide = max(total, n * dim) >= 2**31
    width = triton.next_power_of_2(dim)
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        copy_block, copy_warps = 1 << 20, 4
        block_d = min(width, 1 << 16)
        tile_rows = max(1, (1 << 18) // block_d)
    else:
        # Copy: 4096 floats (16 KB) per program at most, fewer for small x so that it still
        # spreads over the SMs.
        copy_block = 4096
        while copy_block > 512 and triton.cdiv(total, copy_block) < _TARGET_PROGRAMS:
            copy_block //= 2
        copy_warps = max(1, min(4, copy_block // 1024))
        block_d = min(width, 512)
        tile_rows = max(1, 2048 // block_d)
        col_tiles = triton.cdiv(dim, block_d)
        while tile_rows > 1 and tile_rows * block_d > 256 \
                and triton.cdiv(n, tile_rows) * col_tiles < _TARGET_PROGRAMS:
            tile_rows //= 2
    _copy_kernel[(triton.cdiv(total, copy_block),)](x, out, total, BLOCK=copy_block, WIDE=wide,
                                                     num_warps=copy_warps)
    if n > 0:
        grid = (triton.cdiv(n, tile_rows), triton.cdiv(dim, block_d))
        warps = max(1, min(4, tile_rows * block_d // 512))
        _scatter_add_kernel[grid](index, src, out, n, dim, ROWS=tile_rows, BLOCK_D=block_d,
                                  WIDE=wide, num_warps=warps)
    return out
