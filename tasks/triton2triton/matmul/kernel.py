"""Float16 matrix multiply C = A @ B in Triton -- correct but slow baseline.

forward(a, b) returns a new float16 tensor c = a @ b (a: [M, K], b: [K, N], c: [M, N]),
accumulated in float32 and rounded to float16 once at the end.

Each program computes one small 32x32 tile of C, stepping through K 32 at a time with no software
pipelining (num_stages=1), and the programs walk C in plain row-major tile order.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   UPCAST: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm < M)[:, None] & (kk < K)[None, :], other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk < K)[:, None] & (rn < N)[None, :], other=0.0)
        if UPCAST:
            # Interpreter only: it runs tl.dot as a numpy matmul, which is very slow for float16.
            # float16 products are exact in float32, so the result is the same.
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(tl.float16),
             mask=(rm < M)[:, None] & (rn < N)[None, :])


def _cpu_block(d: int) -> int:
    """Interpreter tile for a dimension of size d: 1024 or 512 wide (capped at d rounded up to a
    power of two), whichever pads d less; bigger tiles mean fewer re-loads of A and B."""
    big = min(1024, triton.next_power_of_2(d))
    small = min(512, big)
    return big if triton.cdiv(d, big) * big <= triton.cdiv(d, small) * small else small


def forward(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    assert a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0]
    assert a.dtype == torch.float16 and b.dtype == torch.float16
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, device=a.device, dtype=torch.float16)
    interpreted = a.device.type == "cpu"
    if interpreted:
        # TRITON_INTERPRET=1: each program instance runs in Python, so use a few big tiles.
        bm, bn, bk = _cpu_block(M), _cpu_block(N), min(1024, triton.next_power_of_2(K))
        warps, stages = 4, 1
    else:
        bm, bn, bk, warps, stages = 32, 32, 32, 4, 1
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    _matmul_kernel[grid](a, b, c, M, N, K,
                         a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                         c.stride(0), c.stride(1),
                         BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, UPCAST=interpreted,
                         num_warps=warps, num_stages=stages)
    return c
