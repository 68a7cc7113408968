"""Timing: the baseline and the candidate are timed in alternating rounds on the same inputs, each
repetition a single call with a cold L2 (a flush buffer is rewritten before it), bracketed by device
events, followed by a device-wide synchronize. The per-kernel figure is the median repetition.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

L2_FLUSH_BYTES = 256 * 1024 * 1024   # larger than any current L2 (H100: 50 MB, MI300X: 256 MB MALL)
ROUNDS = 5                            # alternate baseline/candidate to cancel drift (clocks, thermals)
TARGET_SECONDS_PER_KERNEL = 0.4
MIN_REPS, MAX_REPS = 25, 400
WARMUP_CALLS = 5
GPU_METHOD = "cuda-events, cold L2 (256 MB flush) per call, device sync, median, alternating rounds"
CPU_METHOD = "wall clock (perf_counter), median; not a meaningful kernel time"


@dataclass
class Timed:
    median_ms: float
    samples: int


def _gpu_once(torch, fn, flush, start, end) -> float:
    flush.zero_()
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def time_pair(fns: dict, device: str) -> dict[str, Timed]:
    """Time each zero-argument callable in `fns`; returns {name: Timed}."""
    if device == "cpu":
        return {name: _time_cpu(fn) for name, fn in fns.items()}
    import torch
    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    estimate = {}
    for name, fn in fns.items():
        for _ in range(WARMUP_CALLS):
            fn()
        torch.cuda.synchronize()
        estimate[name] = max(_gpu_once(torch, fn, flush, start, end) for _ in range(3))
    samples = {name: [] for name in fns}
    for _ in range(ROUNDS):
        for name, fn in fns.items():
            reps = int(TARGET_SECONDS_PER_KERNEL * 1000 / ROUNDS / max(estimate[name], 1e-3))
            reps = max(MIN_REPS // ROUNDS, min(MAX_REPS // ROUNDS, reps))
            samples[name].extend(_gpu_once(torch, fn, flush, start, end) for _ in range(reps))
    return {name: Timed(statistics.median(s), len(s)) for name, s in samples.items()}


def _time_cpu(fn, reps: int = 3) -> Timed:
    fn()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return Timed(statistics.median(samples), reps)
