"""FP8 (e4m3fn) GEMM with per-tensor scales in Triton: out = (a @ b.T) * scale_a * scale_b, bfloat16.

A program computes a BLOCK_M x BLOCK_N tile. The e4m3fn bits are decoded by hand into bfloat16
(exact: every e4m3fn value is a bfloat16 value) and multiplied with tl.dot in float32: the same code
runs in the interpreter (no float8 arithmetic there) and on GPUs whose FP8 format differs (MI300's
e4m3fnuz). The product is rounded to bfloat16, then scaled, as the reference does.
"""
import torch
import triton
import triton.language as tl

@triton.jit
def _e4m3fn_to_f32(bits):
    """e4m3fn bits (uint8) to float32, exact: subnormals are code * 2^-9 (inputs are finite)."""
    b = bits.to(tl.int32)
    e = (b >> 3) & 15
    m = b & 7
    normal = (((e + 120) << 23) | (m << 20)).to(tl.float32, bitcast=True)
    v = tl.where(e == 0, m.to(tl.float32) * 0.001953125, normal)
    return tl.where((b & 0x80) != 0, -v, v)


@triton.jit
def _gemm_fp8(a_ptr, b_ptr, sa_ptr, sb_ptr, out_ptr, M, N, K,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, INTERPRETED: tl.constexpr):
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + kk[None, :], mask=(rm < M)[:, None] & (kk < K)[None, :], other=0)
        b = tl.load(b_ptr + rn.to(tl.int64)[None, :] * K + kk[:, None], mask=(rn < N)[None, :] & (kk < K)[:, None], other=0)
        af, bf = _e4m3fn_to_f32(a), _e4m3fn_to_f32(b)
        if not INTERPRETED:   # bfloat16 operands (exact for e4m3fn) on a GPU; the interpreter's tl.dot needs float32
            af, bf = af.to(tl.bfloat16), bf.to(tl.bfloat16)
        acc = tl.dot(af, bf, acc)
    s = tl.load(sa_ptr) * tl.load(sb_ptr)
    y = acc.to(tl.bfloat16).to(tl.float32) * s
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], y.to(tl.bfloat16), mask=mask)


def forward(a, b, scale_a, scale_b, m: int, n: int, k: int):
    a, b = a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)
    out = torch.empty((m, n), device=a.device, dtype=torch.bfloat16)
    if a.device.type == "cpu":
        bm, bn, bk, warps = 64, 256, 256, 4          # the interpreter: few, large tiles
    else:
        bm = 16 if m <= 16 else 64 if m <= 64 else 128
        bn, bk, warps = 128, 64, 4 if bm <= 64 else 8
    grid = (triton.cdiv(n, bn), triton.cdiv(m, bm))
    _gemm_fp8[grid](a, b, scale_a, scale_b, out, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        INTERPRETED=a.device.type == "cpu", num_warps=warps)
    return out
