"""Row-wise L2 normalisation in Triton: y = x / max(||x||_2 over each row, eps), float32.

x is read in two passes (sum of squares, then scale) and y written once. The layout follows the
shape:
  * rows up to 16K wide: the row is held in registers, several narrow rows per program, so each
    program still moves a few thousand elements;
  * many wider rows: one program per row, two loops over the row (the second re-reads it from L2);
  * few wide rows (a single row of a million columns): one program per row would leave the GPU
    idle, so each row is split into chunks. A first kernel writes per-(row, chunk) sums of squares
    to a small buffer; a second one adds a row's partials (the same order in every program, so the
    chunks of a row agree) and scales its chunk.
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the one-program-per-row loop on a GPU
_SPLIT_BELOW_ROWS = 256    # fewer wide rows than this: split each row over many programs
_SPLIT_PROGRAMS = 1024     # programs the split path aims for in total (a few per SM)
_SPLIT_MAX_CHUNKS = 1024   # bound on a row's partials, so the second kernel sums one small vector


@triton.jit
def _l2norm_rows(x_ptr, out_ptr, M, N, eps,
                 ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * N
    dst = out_ptr + rows.to(tl.int64)[:, None] * N
    if SINGLE_TILE:
        cols = tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
        inv = 1.0 / tl.maximum(tl.sqrt(tl.sum(x * x, axis=1)), eps)
        tl.store(dst + cols[None, :], x * inv[:, None], mask=row_ok[:, None] & col_ok[None, :])
    else:
        acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=0.0)
            acc += x * x
        inv = 1.0 / tl.maximum(tl.sqrt(tl.sum(acc, axis=1)), eps)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            col_ok = cols < N
            x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
            tl.store(dst + cols[None, :], x * inv[:, None], mask=row_ok[:, None] & col_ok[None, :])


@triton.jit
def _split_sumsq(x_ptr, partial_ptr, N, CHUNK, CHUNKS, BLOCK_N: tl.constexpr):
    # grid (CHUNKS, rows): the sum of squares of one chunk of one row.
    chunk, row = tl.program_id(0), tl.program_id(1)
    begin = chunk.to(tl.int64) * CHUNK
    src = x_ptr + row.to(tl.int64) * N
    acc = tl.zeros([BLOCK_N], tl.float32)
    for off in range(0, CHUNK, BLOCK_N):
        cols = begin + off + tl.arange(0, BLOCK_N)
        x = tl.load(src + cols, mask=cols < N, other=0.0)
        acc += x * x
    tl.store(partial_ptr + row * CHUNKS + chunk, tl.sum(acc, axis=0))


@triton.jit
def _split_apply(x_ptr, out_ptr, partial_ptr, N, CHUNK, CHUNKS, eps,
                 BLOCK_N: tl.constexpr, CHUNKS_P2: tl.constexpr):
    chunk, row = tl.program_id(0), tl.program_id(1)
    k = tl.arange(0, CHUNKS_P2)
    partials = tl.load(partial_ptr + row * CHUNKS + k, mask=k < CHUNKS, other=0.0)
    inv = 1.0 / tl.maximum(tl.sqrt(tl.sum(partials, axis=0)), eps)
    begin = chunk.to(tl.int64) * CHUNK
    src = x_ptr + row.to(tl.int64) * N
    dst = out_ptr + row.to(tl.int64) * N
    for off in range(0, CHUNK, BLOCK_N):
        cols = begin + off + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(src + cols, mask=col_ok, other=0.0)
        tl.store(dst + cols, x * inv, mask=col_ok)


def forward(x: torch.Tensor, rows: int, cols: int, eps: float) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (rows, cols)
    x = x.contiguous()
    out = torch.empty_like(x)
    if rows == 0 or cols == 0:
        return out
    on_cpu = x.device.type == "cpu"
    # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles on the CPU. The
    # path choice below depends on the shape only, so the interpreter exercises the same paths.
    single_max, loop_block = ((1 << 14), (1 << 14)) if on_cpu else (_MAX_SINGLE_TILE, _LOOP_BLOCK)
    width = triton.next_power_of_2(cols)
    if width <= single_max:
        per_program = max(1, ((1 << 19) if on_cpu else 4096) // width)
        warps = 4 if on_cpu else min(16, max(4, per_program * width // 512))
        _l2norm_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols, float(eps), ROWS=per_program,
                                                        BLOCK_N=width, SINGLE_TILE=True, num_warps=warps)
    elif rows >= _SPLIT_BELOW_ROWS:
        per_program = 32 if on_cpu else 1
        _l2norm_rows[(triton.cdiv(rows, per_program),)](x, out, rows, cols, float(eps), ROWS=per_program,
                                                        BLOCK_N=loop_block, SINGLE_TILE=False, num_warps=8)
    else:
        block_n = (1 << 16) if on_cpu else 4096
        target = 8 if on_cpu else _SPLIT_PROGRAMS
        chunks = max(1, min(triton.cdiv(target, rows), triton.cdiv(cols, block_n), _SPLIT_MAX_CHUNKS))
        chunk = triton.cdiv(triton.cdiv(cols, chunks), block_n) * block_n   # a whole number of blocks
        chunks = triton.cdiv(cols, chunk)
        partial = torch.empty((rows, chunks), dtype=torch.float32, device=x.device)
        grid = (chunks, rows)   # rows < 256 here: well inside the grid's y limit
        _split_sumsq[grid](x, partial, cols, chunk, chunks, BLOCK_N=block_n, num_warps=8)
        _split_apply[grid](x, out, partial, cols, chunk, chunks, float(eps),
                           BLOCK_N=block_n, CHUNKS_P2=triton.next_power_of_2(chunks), num_warps=8)
    return out
