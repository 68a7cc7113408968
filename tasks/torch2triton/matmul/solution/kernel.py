"""GEMM in Triton: C = A @ B, A [m, k] and B [k, n] float16, C float16, float32 accumulation.

One program per output tile: tensor-core tl.dot over K slices (float16 operands, float32
accumulator), one rounding to float16 and a single store.
  * tiles of 128 x 128 when they give about one wave of programs or more, else 64 x 128;
  * a 4-stage software pipeline (num_stages=4) overlaps the next slices' loads with the MMAs;
  * grouped tile order: programs running together share rows of A and columns of B in L2.
m, n and k are arbitrary: out-of-range rows and columns wrap to valid ones (% m, % n) for the
loads, the K tail is masked to 0, and the store is masked.
"""
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, UPCAST: tl.constexpr):
    # Grouped ordering: walk GROUP_M tile-rows down one tile-column before moving right.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (rm % M).to(tl.int64)[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk.to(tl.int64)[:, None] * N + (rn % N)[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_ok = (k0 + rk) < K
        a = tl.load(a_ptrs, mask=k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None], other=0.0)
        if UPCAST:
            # Interpreter only: it runs tl.dot as a numpy matmul, which is very slow for float16.
            # float16 products are exact in float32, so the result is the same.
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    c_ptrs = c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rm < M)[:, None] & (rn < N)[None, :])


@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _gpu_tiles(m: int, n: int, sms: int):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages): 128 x 128 tiles when they make about one
    wave of programs or more, else 64 x 128 so that smaller outputs still reach most SMs."""
    if triton.cdiv(m, 128) * triton.cdiv(n, 128) >= (3 * sms) // 4:
        return 128, 128, 32, 4, 4
    return 64, 128, 64, 4, 4


def _cpu_block(d: int) -> int:
    """Interpreter tile for a dimension of size d: 1024 or 512 wide (capped at d rounded up to a
    power of two, at least 16), whichever pads d less; bigger tiles mean fewer programs."""
    big = max(16, min(1024, triton.next_power_of_2(d)))
    small = min(512, big)
    return big if triton.cdiv(d, big) * big <= triton.cdiv(d, small) * small else small


def forward(a: torch.Tensor, b: torch.Tensor, m: int, n: int, k: int) -> torch.Tensor:
    assert a.dtype == b.dtype == torch.float16
    assert tuple(a.shape) == (m, k) and tuple(b.shape) == (k, n)
    a, b = a.contiguous(), b.contiguous()
    c = torch.empty((m, n), dtype=torch.float16, device=a.device)
    if m == 0 or n == 0:
        return c
    if a.device.type == "cpu":
        # TRITON_INTERPRET=1: each program instance runs in Python, so use a few big tiles.
        bm, bn, bk = _cpu_block(m), _cpu_block(n), max(16, min(1024, triton.next_power_of_2(k)))
        warps, stages, upcast = 4, 1, True
    else:
        bm, bn, bk, warps, stages = _gpu_tiles(m, n, _sm_count(a.device.index or 0))
        upcast = False
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    _matmul_kernel[grid](a, b, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                         GROUP_M=8, UPCAST=upcast, num_warps=warps, num_stages=stages)
    return c
