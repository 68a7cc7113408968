"""Is the judge's int8 GEMM ceiling (roofline._gemm: torch._int_mm on two row-major n x n operands)
the device's? On an H200 it read 126 TOPS beside float8's 1,421 TFLOP/s (results/gpu-2026-11-29e.md):
Hopper's int8 tensor-core rate is float8's, so the row-major B likely took a slow path. This times
both layouts of B (and a few sizes) with the judge's own timer, one line each.

    python3 bench/int8_ceiling_probe.py
"""
import torch

from runner.evaluator.judge.roofline import _timed

for n in (4096, 8192, 16384):
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randint(-128, 127, (n, n), device="cuda", generator=gen, dtype=torch.int8)
    b = torch.randint(-128, 127, (n, n), device="cuda", generator=gen, dtype=torch.int8)
    for layout, rhs in (("row-major B", b), ("column-major B", b.t())):
        seconds = _timed(lambda: torch._int_mm(a, rhs))
        print(f"int8 n={n:6d} {layout:15s} {2 * n ** 3 / seconds / 1e12:8.1f} TOPS")
