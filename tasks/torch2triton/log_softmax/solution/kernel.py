"""Log-softmax in Triton.

forward(x, rows, cols) returns torch.log_softmax(x, dim=-1) (float32).

Memory-bound: x is read once and out written once where the row fits on chip. The layout follows
the shape:
  * rows up to 16K wide: a [ROWS, next_pow2(cols)] tile held in registers, several rows per
    program so that each program still moves a few thousand elements; for many short rows (97,
    31 columns) the tile stays small enough that there are a few programs per SM;
  * many wider rows: one program per row, two loops over column blocks: an online max /
    sum-of-exp (each column block rescales the running sum to the new max), then the output;
  * few wide rows (three rows of 600K columns, one of 1.5M): one program per row would leave
    the GPU idle, so each row is split into chunks. A first kernel writes each (row, chunk)'s max
    and sum of exp(x - max); a second one, over the same chunks, folds the row's partials into
    the row's shift max + log(sum) and writes x - shift for its chunk (its re-read of x mostly
    hits L2, which holds a few-MB input).
"""
import torch
import triton
import triton.language as tl

_MAX_SINGLE_TILE = 16384   # widest row held entirely in registers on a GPU
_LOOP_BLOCK = 8192         # column block of the looping path for wider rows
_SPLIT_BELOW_ROWS = 256    # fewer rows wider than one tile: split each row over many programs
_SPLIT_PROGRAMS = 1024     # programs the split path aims for in total (a few per SM)
_SPLIT_BLOCK = 4096        # column block of the split path
_SPLIT_MAX_CHUNKS = 1024   # bound on a row's partials, so each program folds one small vector


@triton.jit
def _log_softmax_kernel(x_ptr, out_ptr, M, N,
                        ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE_TILE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    # Tail programs re-read row M-1 (always valid) so loads need only the column mask.
    src = x_ptr + tl.minimum(rows, M - 1).to(tl.int64)[:, None] * N
    dst = out_ptr + rows.to(tl.int64)[:, None] * N
    if SINGLE_TILE:
        cols = tl.arange(0, BLOCK_N)
        col_ok = cols < N
        x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=float("-inf"))
        m = tl.max(x, axis=1)
        shift = m + tl.log(tl.sum(tl.exp(x - m[:, None]), axis=1))
        tl.store(dst + cols[None, :], x - shift[:, None], mask=row_ok[:, None] & col_ok[None, :])
    else:
        m = tl.full([ROWS], float("-inf"), tl.float32)
        s = tl.zeros([ROWS], tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            x = tl.load(src + cols[None, :], mask=(cols < N)[None, :], other=float("-inf"))
            new_m = tl.maximum(m, tl.max(x, axis=1))   # finite: every block holds one real column
            s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m[:, None]), axis=1)
            m = new_m
        shift = m + tl.log(s)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            col_ok = cols < N
            x = tl.load(src + cols[None, :], mask=col_ok[None, :], other=0.0)
            tl.store(dst + cols[None, :], x - shift[:, None], mask=row_ok[:, None] & col_ok[None, :])


@triton.jit
def _split_stats(x_ptr, part_m_ptr, part_s_ptr, N, CHUNK, CHUNKS, BLOCK_N: tl.constexpr):
    # grid (CHUNKS, rows): max and sum of exp(x - max) of one chunk of one row.
    chunk, row = tl.program_id(0), tl.program_id(1)
    begin = chunk.to(tl.int64) * CHUNK
    src = x_ptr + row.to(tl.int64) * N + begin
    limit = N - begin   # columns of the row left from this chunk's start
    m = float("-inf")
    s = 0.0
    for off in range(0, CHUNK, BLOCK_N):
        offs = off + tl.arange(0, BLOCK_N)
        x = tl.load(src + offs, mask=offs < limit, other=float("-inf"))
        # finite: a chunk's first block holds a real column, so m is finite from there on
        new_m = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    tl.store(part_m_ptr + row * CHUNKS + chunk, m)
    tl.store(part_s_ptr + row * CHUNKS + chunk, s)


@triton.jit
def _split_output(x_ptr, out_ptr, part_m_ptr, part_s_ptr, N, CHUNK, CHUNKS,
                  BLOCK_N: tl.constexpr, CHUNKS_P2: tl.constexpr):
    # grid (CHUNKS, rows): the row's shift from all its partials, then x - shift for one chunk.
    chunk, row = tl.program_id(0), tl.program_id(1)
    k = tl.arange(0, CHUNKS_P2)
    k_ok = k < CHUNKS
    pm = tl.load(part_m_ptr + row * CHUNKS + k, mask=k_ok, other=float("-inf"))
    ps = tl.load(part_s_ptr + row * CHUNKS + k, mask=k_ok, other=0.0)
    m = tl.max(pm, axis=0)
    shift = m + tl.log(tl.sum(ps * tl.exp(pm - m), axis=0))
    begin = chunk.to(tl.int64) * CHUNK
    base = row.to(tl.int64) * N + begin
    limit = N - begin
    for off in range(0, CHUNK, BLOCK_N):
        offs = off + tl.arange(0, BLOCK_N)
        ok = offs < limit
        x = tl.load(x_ptr + base + offs, mask=ok, other=0.0)
        tl.store(out_ptr + base + offs, x - shift, mask=ok)


def _tiles(x: torch.Tensor, N: int) -> tuple[bool, int, int, int]:
    """(single_tile, BLOCK_N, ROWS per program, num_warps) for rows of N columns."""
    width = triton.next_power_of_2(max(N, 1))
    if x.device.type == "cpu":
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles.
        single = width <= (1 << 16)
        block_n = width if single else (1 << 16)
        return single, block_n, max(1, (1 << 19) // block_n), 4
    if width <= _MAX_SINGLE_TILE:
        # Small tiles (1-2K elements), so that even a few MB spread over many programs; measured
        # on an H100 (cold L2): narrow rows reduce faster over more warps, wider ones want ~16
        # elements per thread.
        if width <= 64:
            return True, width, 1024 // width, 8
        if width <= 256:
            return True, width, 1024 // width, 2
        if width <= 2048:
            return True, width, max(1, 2048 // width), 4
        return True, width, 1, min(16, max(8, width // 1024))
    return False, _LOOP_BLOCK, 1, 8


def forward(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    assert x.dtype == torch.float32 and tuple(x.shape) == (rows, cols) and x.is_contiguous()
    out = torch.empty_like(x)
    if rows == 0 or cols == 0:
        return out
    on_cpu = x.device.type == "cpu"
    # The split choice depends on the shape only, so the interpreter exercises the same paths.
    if rows < _SPLIT_BELOW_ROWS and cols > _MAX_SINGLE_TILE:
        # TRITON_INTERPRET=1 runs every program instance in Python: few, large tiles on the CPU.
        block_n = (1 << 16) if on_cpu else _SPLIT_BLOCK
        target = 8 if on_cpu else _SPLIT_PROGRAMS
        chunks = max(1, min(triton.cdiv(target, rows), triton.cdiv(cols, block_n), _SPLIT_MAX_CHUNKS))
        chunk = triton.cdiv(triton.cdiv(cols, chunks), block_n) * block_n   # a whole number of blocks
        chunks = triton.cdiv(cols, chunk)   # every chunk holds at least one column
        part_m = torch.empty((rows, chunks), dtype=torch.float32, device=x.device)
        part_s = torch.empty((rows, chunks), dtype=torch.float32, device=x.device)
        _split_stats[(chunks, rows)](x, part_m, part_s, cols, chunk, chunks, BLOCK_N=block_n,
                                     num_warps=8)
        _split_output[(chunks, rows)](x, out, part_m, part_s, cols, chunk, chunks, BLOCK_N=block_n,
                                      CHUNKS_P2=triton.next_power_of_2(chunks), num_warps=8)
        return out
    single, block_n, per_program, warps = _tiles(x, cols)
    _log_softmax_kernel[(triton.cdiv(rows, per_program),)](
        x, out, rows, cols, ROWS=per_program, BLOCK_N=block_n, SINGLE_TILE=single, num_warps=warps)
    return out
