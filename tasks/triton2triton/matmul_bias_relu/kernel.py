"""GEMM with a fused bias + relu epilogue in Triton -- correct but slow baseline.

forward(a, b, bias, m, n, k) returns relu(a @ b + bias) as a new float16 tensor [m, n] (a float16
[m, k], b float16 [k, n], bias float32 [n]), accumulated in float32.

On a GPU each program owns a 1 x 128 strip of C (one output element per thread) and walks K one
step at a time: a scalar of A times a row of B, upcast to float32, added into the accumulator. No
tiling of K, no reuse of A or B across rows, no tensor cores (no tl.dot).
(Under the CPU interpreter, TRITON_INTERPRET=1, one step of K is one numpy pass over the block, so
there programs take big blocks and K slices through tl.dot on float32 upcasts -- only so that the
interpreter finishes in seconds rather than minutes; it says nothing about GPU speed.)
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_bias_relu_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             INTERPRETED: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = rm < M
    n_ok = rn < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if INTERPRETED:
        rk = tl.arange(0, BLOCK_K)
        for k0 in range(0, K, BLOCK_K):
            k_ok = (k0 + rk) < K
            a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + (k0 + rk)[None, :],
                        mask=m_ok[:, None] & k_ok[None, :], other=0.0).to(tl.float32)
            b = tl.load(b_ptr + (k0 + rk).to(tl.int64)[:, None] * N + rn[None, :],
                        mask=k_ok[:, None] & n_ok[None, :], other=0.0).to(tl.float32)
            acc = tl.dot(a, b, acc)
    else:
        for kk in range(0, K):
            a = tl.load(a_ptr + rm.to(tl.int64) * K + kk, mask=m_ok, other=0.0).to(tl.float32)
            b = tl.load(b_ptr + kk * N + rn, mask=n_ok, other=0.0).to(tl.float32)
            acc += a[:, None] * b[None, :]
    bias = tl.load(bias_ptr + rn, mask=n_ok, other=0.0)
    out = tl.maximum(acc + bias[None, :], 0.0)
    tl.store(c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], out.to(tl.float16),
             mask=m_ok[:, None] & n_ok[None, :])


def forward(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, m: int, n: int, k: int) -> torch.Tensor:
    a, b, bias = a.contiguous(), b.contiguous(), bias.contiguous()
    c = torch.empty((m, n), dtype=torch.float16, device=a.device)
    if m == 0 or n == 0:
        return c
    interpreted = a.device.type == "cpu"
    if interpreted:
        bm, bn = max(16, min(1024, triton.next_power_of_2(m))), max(16, min(1024, triton.next_power_of_2(n)))
        bk = max(16, min(1024, triton.next_power_of_2(k)))
    else:
        bm, bn, bk = 1, 128, 1
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _matmul_bias_relu_kernel[grid](a, b, bias, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                   INTERPRETED=interpreted, num_warps=4)
    return c
