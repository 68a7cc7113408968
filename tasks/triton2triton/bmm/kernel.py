"""Batched small matrix multiply in Triton -- correct but slow baseline.

forward(a, b, batch, m, n, k) returns torch.bmm(a, b) as a new float32 tensor [batch, m, n].

This version is a straightforward first tiled GEMM: each program computes one 32 x 32 output
tile of one matrix with 4 warps, walking K in 32-wide slices with tl.dot (IEEE float32),
masked loads (zero outside the matrices), whatever the matrix sizes. (On the CPU interpreter
one program takes many whole matrices with rank-1 updates, only so that the interpreter runs in
reasonable time.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_rank1(a_ptr, b_ptr, c_ptr, BATCH, M, N, K,
               BB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    bat = tl.program_id(0).to(tl.int64) * BB + tl.arange(0, BB)
    tiles_n = tl.cdiv(N, BN)
    rm = (tl.program_id(1) // tiles_n) * BM + tl.arange(0, BM)
    rn = (tl.program_id(1) % tiles_n) * BN + tl.arange(0, BN)
    ok_b = (bat < BATCH)[:, None, None]
    a_mask = ok_b & (rm < M)[None, :, None]
    b_mask = ok_b & (rn < N)[None, None, :]
    acc = tl.zeros([BB, BM, BN], dtype=tl.float32)
    for p in range(0, K):
        a_col = tl.load(a_ptr + bat[:, None, None] * M * K + rm[None, :, None] * K + p, mask=a_mask, other=0.0)
        b_row = tl.load(b_ptr + bat[:, None, None] * K * N + p * N + rn[None, None, :], mask=b_mask, other=0.0)
        acc += a_col * b_row
    tl.store(c_ptr + bat[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], acc,
             mask=a_mask & b_mask)


@triton.jit
def _bmm_tiled(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    bat = tl.program_id(0).to(tl.int64)
    tiles_n = tl.cdiv(N, BN)
    rm = (tl.program_id(1) // tiles_n) * BM + tl.arange(0, BM)
    rn = (tl.program_id(1) % tiles_n) * BN + tl.arange(0, BN)
    a_base = a_ptr + bat * M * K
    b_base = b_ptr + bat * K * N
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_base + rm[:, None] * K + rk[None, :], mask=(rm < M)[:, None] & (rk < K)[None, :], other=0.0)
        b = tl.load(b_base + rk[:, None] * N + rn[None, :], mask=(rk < K)[:, None] & (rn < N)[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + bat * M * N + rm[:, None] * N + rn[None, :], acc, mask=(rm < M)[:, None] & (rn < N)[None, :])


def forward(a: torch.Tensor, b: torch.Tensor, batch: int, m: int, n: int, k: int) -> torch.Tensor:
    a, b = a.contiguous(), b.contiguous()
    c = torch.empty((batch, m, n), dtype=torch.float32, device=a.device)
    if batch == 0 or m == 0 or n == 0:
        return c
    if a.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs as Python over numpy blocks, so take
        # many whole matrices per program to keep the interpreter fast.
        bm, bn = triton.next_power_of_2(m), triton.next_power_of_2(n)
        bb = 1 << max(0, ((1 << 18) // (bm * bn)).bit_length() - 1)
        grid = (triton.cdiv(batch, bb), triton.cdiv(m, bm) * triton.cdiv(n, bn))
        _bmm_rank1[grid](a, b, c, batch, m, n, k, BB=bb, BM=bm, BN=bn, num_warps=4)
        return c
    bm = bn = bk = 32
    grid = (batch, triton.cdiv(m, bm) * triton.cdiv(n, bn))
    _bmm_tiled[grid](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, num_warps=4)
    return c
