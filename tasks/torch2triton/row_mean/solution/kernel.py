"""Row mean in Triton: y = x.mean(dim=-1), float32 [rows].

Memory-bound: x is read once. The layout follows the shape:
  * rows up to 16K wide: one tile per row, several narrow rows per program, so each program
    still moves a few thousand elements;
  * many wider rows: one program per row, looping over column blocks into a register accumulator;
  * few wide rows (a single row of a million columns): one program per row would leave the GPU
    idle, so each row is split into chunks. A first kernel writes per-(row, chunk) sums to a
    small buffer; a second one adds a row's partials and divides.
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
def _row_mean_kernel(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * N
    acc = tl.zeros([ROWS, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):   # runs once when the row fits one tile (BLOCK_N >= N)
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1) / N, mask=rows < M)


@triton.jit
def _split_sum(x_ptr, partial_ptr, N, CHUNK, CHUNKS, BLOCK_N: tl.constexpr):
    # grid (CHUNKS, rows): the sum of one chunk of one row.
    chunk, row = tl.program_id(0), tl.program_id(1)
    begin = chunk.to(tl.int64) * CHUNK
    src = x_ptr + row.to(tl.int64) * N
    acc = tl.zeros([BLOCK_N], tl.float32)
    for off in range(0, CHUNK, BLOCK_N):
        cols = begin + off + tl.arange(0, BLOCK_N)
        acc += tl.load(src + cols, mask=cols < N, other=0.0)
    tl.store(partial_ptr + row * CHUNKS + chunk, tl.sum(acc, axis=0))


@triton.jit
def _split_finish(partial_ptr, out_ptr, N, CHUNKS, CHUNKS_P2: tl.constexpr):
    row = tl.program_id(0)
    k = tl.arange(0, CHUNKS_P2)
    partials = tl.load(partial_ptr + row * CHUNKS + k, mask=k < CHUNKS, other=0.0)
    tl.store(out_ptr + row, tl.sum(partials, axis=0) / N)


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (rows, cols)
    x = x.contiguous()
    out = torch.empty((rows,), dtype=torch.float32, device=x.device)
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
        _row_mean_kernel[(triton.cdiv(rows, per_program),)](x, out, rows, cols, ROWS=per_program,
                                                            BLOCK_N=width, num_warps=warps)
    elif rows >= _SPLIT_BELOW_ROWS:
        per_program = 32 if on_cpu else 1
        _row_mean_kernel[(triton.cdiv(rows, per_program),)](x, out, rows, cols, ROWS=per_program,
                                                            BLOCK_N=loop_block, num_warps=8)
    else:
        block_n = (1 << 16) if on_cpu else 4096
        target = 8 if on_cpu else _SPLIT_PROGRAMS
        chunks = max(1, min(triton.cdiv(target, rows), triton.cdiv(cols, block_n), _SPLIT_MAX_CHUNKS))
        chunk = triton.cdiv(triton.cdiv(cols, chunks), block_n) * block_n   # a whole number of blocks
        chunks = triton.cdiv(cols, chunk)
        partial = torch.empty((rows, chunks), dtype=torch.float32, device=x.device)
        _split_sum[(chunks, rows)](x, partial, cols, chunk, chunks, BLOCK_N=block_n, num_warps=8)
        _split_finish[(rows,)](partial, out, cols, chunks, CHUNKS_P2=triton.next_power_of_2(chunks), num_warps=4)
    return out
