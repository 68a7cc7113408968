"""Batched small matrix multiply in Triton: C[b] = A[b] @ B[b], IEEE float32.

One program per (matrix, BM x BN tile); the tile sizes follow the matrices (16..64, tl.dot's
minimum is 16), so tiny matrices do not pay for 64-wide tiles. K is walked in BK slices with
masked loads (zero outside), accumulating in float32 with tl.dot. The batch is grid axis 0,
which has room for any batch size. Under the interpreter (TRITON_INTERPRET=1, device cpu), where
every program instance costs milliseconds of Python, one program takes BB whole matrices at once
through a batched (3-D) tl.dot instead.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    bat = tl.program_id(0).to(tl.int64)
    tiles_n = tl.cdiv(N, BN)
    tm = tl.program_id(1) // tiles_n
    tn = tl.program_id(1) % tiles_n
    rm = tm * BM + tl.arange(0, BM)
    rn = tn * BN + tl.arange(0, BN)
    a_base = a_ptr + bat * M * K
    b_base = b_ptr + bat * K * N
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_base + rm[:, None] * K + rk[None, :], mask=(rm < M)[:, None] & (rk < K)[None, :], other=0.0)
        b = tl.load(b_base + rk[:, None] * N + rn[None, :], mask=(rk < K)[:, None] & (rn < N)[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_base = c_ptr + bat * M * N
    tl.store(c_base + rm[:, None] * N + rn[None, :], acc, mask=(rm < M)[:, None] & (rn < N)[None, :])


@triton.jit
def _bmm_many_kernel(a_ptr, b_ptr, c_ptr, BATCH, M, N, K,
                     BB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Interpreter path: BB whole matrices per program (BM >= M, BN >= N), K in BK slices.
    bat = tl.program_id(0).to(tl.int64) * BB + tl.arange(0, BB)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    ok_b = (bat < BATCH)[:, None, None]
    acc = tl.zeros([BB, BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a_mask = ok_b & (rm < M)[None, :, None] & (rk < K)[None, None, :]
        b_mask = ok_b & (rk < K)[None, :, None] & (rn < N)[None, None, :]
        a = tl.load(a_ptr + bat[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :], mask=a_mask, other=0.0)
        b = tl.load(b_ptr + bat[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :], mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_mask = ok_b & (rm < M)[None, :, None] & (rn < N)[None, None, :]
    tl.store(c_ptr + bat[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], acc, mask=c_mask)


def _block(size: int, cap: int) -> int:
    return max(16, min(cap, triton.next_power_of_2(size)))


def forward(a: torch.Tensor, b: torch.Tensor, batch: int, m: int, n: int, k: int) -> torch.Tensor:
    assert a.dtype == b.dtype == torch.float32
    assert tuple(a.shape) == (batch, m, k) and tuple(b.shape) == (batch, k, n)
    a, b = a.contiguous(), b.contiguous()
    c = torch.empty((batch, m, n), dtype=torch.float32, device=a.device)
    if batch == 0 or m == 0 or n == 0:
        return c
    if a.device.type == "cpu":
        bm, bn, bk = _block(m, 256), _block(n, 256), _block(k, 256)
        per_matrix = bm * bk + bk * bn + bm * bn
        bb = 1 << max(0, ((1 << 20) // per_matrix).bit_length() - 1)   # a power of two, >= 1
        _bmm_many_kernel[(triton.cdiv(batch, bb),)](a, b, c, batch, m, n, k, BB=bb, BM=bm, BN=bn, BK=bk)
        return c
    bm, bn, bk = _block(m, 64), _block(n, 64), _block(k, 32)
    grid = (batch, triton.cdiv(m, bm) * triton.cdiv(n, bn))
    _bmm_kernel[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, num_warps=4)
    return c
