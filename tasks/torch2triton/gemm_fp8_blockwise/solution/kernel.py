"""FP8 (e4m3fn) GEMM with DeepSeek-V3 block-wise scales in Triton, bfloat16 out.

A program computes a BLOCK_M x BLOCK_N tile; K advances one 128-deep scale block at a time: the
e4m3fn bits are decoded by hand into bfloat16 (exact), tl.dot gives the block's partial product in
float32, which is multiplied by the row's activation scale and the weight block's scale and added to
the accumulator (DeepGEMM's scheme). The same code runs in the interpreter (no float8 arithmetic
there) and on GPUs whose FP8 format differs (MI300's e4m3fnuz).
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
def _gemm_fp8_block(a_ptr, as_ptr, b_ptr, bs_ptr, out_ptr, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, INTERPRETED: tl.constexpr):
    # BLOCK_N divides 128, so a program's columns share one weight-scale row.
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    n0 = tl.program_id(0) * BLOCK_N
    rn = n0 + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    KB = K // 128
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for kb in range(0, KB):
        part = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
        for k1 in range(0, 128, BLOCK_K):
            kk = kb * 128 + k1 + rk
            a = tl.load(a_ptr + rm.to(tl.int64)[:, None] * K + kk[None, :], mask=(rm < M)[:, None], other=0)
            b = tl.load(b_ptr + rn.to(tl.int64)[None, :] * K + kk[:, None], mask=(rn < N)[None, :], other=0)
            af, bf = _e4m3fn_to_f32(a), _e4m3fn_to_f32(b)
            if not INTERPRETED:   # bfloat16 operands (exact for e4m3fn) on a GPU; the interpreter's tl.dot needs float32
                af, bf = af.to(tl.bfloat16), bf.to(tl.bfloat16)
            part = tl.dot(af, bf, part)
        sa = tl.load(as_ptr + rm.to(tl.int64) * KB + kb, mask=rm < M, other=0.0)
        sb = tl.load(bs_ptr + (n0 // 128) * KB + kb)
        acc += part * sa[:, None] * sb
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=mask)


def forward(a, a_s, b, b_s, m: int, n: int, k: int):
    a, b = a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)
    a_s, b_s = a_s.contiguous(), b_s.contiguous()
    out = torch.empty((m, n), device=a.device, dtype=torch.bfloat16)
    if a.device.type == "cpu":
        bm, bn, bk, warps = 64, 128, 128, 4          # the interpreter: few, large tiles
    else:
        bm = 16 if m <= 16 else 64 if m <= 64 else 128
        bn, bk, warps = 128, 64, 4 if bm <= 64 else 8
    grid = (triton.cdiv(n, bn), triton.cdiv(m, bm))
    _gemm_fp8_block[grid](a, a_s, b, b_s, out, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        INTERPRETED=a.device.type == "cpu", num_warps=warps)
    return out
