"""Grading against the hardware: what a timed config achieved against this GPU's own ceilings.

A task's `[work]` (runner/tasks/work.py) says how many bytes one call must move and how many FLOPs it
must do. Divided by a timed call they are the achieved GB/s and TFLOP/s; divided by this device's
ceilings they give the call's roofline time, max(bytes / bandwidth, flops / math peak), and the
fraction of it a kernel reaches (roofline time / measured time; 1.0 is the roofline). The ceilings
are measured on this GPU, not read from a datasheet (docs/scoring.md says why): a device-to-device
copy for bandwidth, the vendor GEMM (torch.matmul; torch._scaled_mm for float8, torch._int_mm for
int8) for each dtype's math peak. They are measured once per GPU model and driver, in the judge's
process while it holds the device, and cached under the user's cache folder.

The judge calls `annotate` at the end of an evaluation, on its own figures; nothing here runs in a
kernel runner.
"""
from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from runner.results.result import ConfigResult, Evaluation
from runner.tasks.work import DTYPES, WorkError

CACHE_VERSION = 2   # 2: int8 takes a column-major B (row-major read 126 of 952 TOPS on an H200)
COPY_BYTES = 1 << 30            # per buffer: far beyond any L2, so the copy streams from HBM
GEMM_SIZE = {"float32": 4096, "tfloat32": 8192, "bfloat16": 8192, "float16": 8192, "float8_e4m3fn": 8192,
             "int8": 8192}
REPS = 20


@dataclass
class Ceilings:
    gpu: str
    driver: str
    bandwidth_gbps: float | None                  # device-to-device copy: (read + write) bytes / time
    tflops: dict[str, float | None] = field(default_factory=dict)   # dtype -> vendor GEMM peak
    measured: str = ""                            # when (UTC)
    method: str = ""
    notes: list[str] = field(default_factory=list)   # a dtype this GPU or torch could not measure, and why

    def to_dict(self) -> dict:
        return asdict(self)


def cache_path(gpu: str, driver: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gauntlet" / "ceilings"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{gpu}-{driver}").strip("_")
    return base / f"{slug}.json"


def ceilings(gpu: str, driver: str, refresh: bool = False) -> Ceilings:
    """This GPU's ceilings: from the cache when measured before with this GPU and driver, else measured
    now (seconds) and cached. The device must be held (the judge's exclusive hold)."""
    path = cache_path(gpu, driver)
    if not refresh and path.is_file():
        try:
            data = json.loads(path.read_text())
            if data.pop("version", None) == CACHE_VERSION:
                return Ceilings(**data)
        except (OSError, ValueError, TypeError):
            pass                  # a damaged cache is measured again
    found = measure(gpu, driver)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"version": CACHE_VERSION, **found.to_dict()}, indent=2))
        os.replace(tmp, path)
    except OSError:
        found.notes.append(f"ceilings not cached ({path} is not writable)")
    return found


def _timed(fn, reps: int = REPS) -> float:
    """The fastest of `reps` calls in seconds, by CUDA events (after two warm-up calls)."""
    import torch
    fn()
    fn()
    torch.cuda.synchronize()
    best = math.inf
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    return best


def _gemm(dtype: str, n: int):
    """A zero-argument call doing one n x n x n GEMM in `dtype` on the vendor library."""
    import torch
    gen = torch.Generator(device="cuda").manual_seed(0)
    if dtype in ("float32", "tfloat32"):
        a = torch.randn((n, n), device="cuda", generator=gen)
        b = torch.randn((n, n), device="cuda", generator=gen)
        return lambda: torch.matmul(a, b)
    if dtype in ("bfloat16", "float16"):
        dt = getattr(torch, dtype)
        a = torch.randn((n, n), device="cuda", generator=gen).to(dt)
        b = torch.randn((n, n), device="cuda", generator=gen).to(dt)
        return lambda: torch.matmul(a, b)
    if dtype == "float8_e4m3fn":
        a = torch.randn((n, n), device="cuda", generator=gen).to(torch.float8_e4m3fn)
        b = torch.randn((n, n), device="cuda", generator=gen).to(torch.float8_e4m3fn).t()   # column-major
        one = torch.ones((), device="cuda")
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    if dtype == "int8":
        a = torch.randint(-128, 127, (n, n), device="cuda", generator=gen, dtype=torch.int8)
        # column-major B, as for float8: cuBLASLt's fast int8 kernels want TN; a row-major B read
        # 124-133 TOPS on an H200 where column-major read 810-1014 (results/gpu-2026-11-29f.md)
        b = torch.randint(-128, 127, (n, n), device="cuda", generator=gen, dtype=torch.int8).t()
        return lambda: torch._int_mm(a, b)
    raise ValueError(dtype)


def measure(gpu: str, driver: str) -> Ceilings:
    """Measure bandwidth and every dtype's GEMM peak on GPU 0 (seconds in all)."""
    import torch
    found = Ceilings(gpu=gpu, driver=driver, bandwidth_gbps=None,
                     measured=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     method=(f"bandwidth: torch copy_ of {COPY_BYTES >> 20} MiB device to device, 2x its size "
                             f"over the fastest of {REPS} calls (CUDA events); math: the fastest of {REPS} "
                             "n x n x n GEMMs per dtype (torch.matmul; torch._scaled_mm for float8_e4m3fn, "
                             "torch._int_mm for int8, B column-major for both; float32 without TF32, tfloat32 with it), 2 n^3 / time"))
    try:
        src = torch.empty(COPY_BYTES, dtype=torch.uint8, device="cuda").random_(0, 255)
        dst = torch.empty_like(src)
        found.bandwidth_gbps = round(2 * COPY_BYTES / _timed(lambda: dst.copy_(src)) / 1e9, 1)
        del src, dst
    except Exception as exc:           # an odd device: recorded, the verdict goes on
        found.notes.append(f"bandwidth not measured: {type(exc).__name__}: {str(exc)[:160]}")
    saved = torch.backends.cuda.matmul.allow_tf32
    try:
        for dtype in DTYPES:
            n = GEMM_SIZE[dtype]
            torch.backends.cuda.matmul.allow_tf32 = dtype == "tfloat32"
            try:
                seconds = _timed(_gemm(dtype, n))
                found.tflops[dtype] = round(2 * n ** 3 / seconds / 1e12, 1)
            except Exception as exc:
                found.tflops[dtype] = None
                found.notes.append(f"{dtype} GEMM not measured: {type(exc).__name__}: {str(exc)[:160]}")
            torch.cuda.empty_cache()
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved   # the judge's strict float32 stays in force
    return found


def figures(nbytes: float, flops: float, ms: float, ceil: Ceilings, dtype: str) -> dict:
    """Achieved GB/s and TFLOP/s of a call of `ms`, and the fraction of the roofline it reaches."""
    seconds = ms / 1e3
    out = {"achieved_gbps": round(nbytes / seconds / 1e9, 2), "achieved_tflops": round(flops / seconds / 1e12, 4)}
    memory_s = nbytes / (ceil.bandwidth_gbps * 1e9) if ceil.bandwidth_gbps else None
    peak = ceil.tflops.get(dtype)
    math_s = flops / (peak * 1e12) if peak else None
    if memory_s is None or (flops and math_s is None):
        return {**out, "roofline_fraction": None, "bound": None}
    math_s = math_s or 0.0
    return {**out, "roofline_fraction": round(max(memory_s, math_s) / seconds, 4),
            "bound": "memory" if memory_s >= math_s else "compute"}


def annotate(evaluation: Evaluation, task, device: str) -> list[str]:
    """Add each timed config's work, achieved rates and roofline fraction (candidate and baseline) to
    the evaluation, and the ceilings they were measured against. Nothing on the CPU (its times are not
    kernel speed), for a task without [work], or where the ceilings cannot be had: the notes say why."""
    if device == "cpu" or task.work is None or not evaluation.timing_meaningful:
        return []
    timed = [row for row in evaluation.configs if row.candidate_ms or row.baseline_ms]
    if not timed:
        return []
    env = evaluation.environment
    try:
        ceil = ceilings(str(env.get("gpu", "unknown-gpu")), str(env.get("driver", "unknown-driver")))
    except Exception as exc:
        return [f"note: no roofline figures: the ceilings were not measured ({type(exc).__name__}: {str(exc)[:160]})"]
    evaluation.ceilings = ceil.to_dict()
    for row in timed:
        _annotate_row(row, task, ceil)
    return [f"note: ceilings: {n}" for n in ceil.notes]


def _annotate_row(row: ConfigResult, task, ceil: Ceilings) -> None:
    try:
        nbytes, flops = task.work.of(row.params)
    except WorkError:
        return                      # validate refuses such a task; a drawn config could still divide by 0
    row.work_bytes, row.work_flops = nbytes, flops
    if row.candidate_ms and row.correct:
        fig = figures(nbytes, flops, row.candidate_ms, ceil, task.work.dtype)
        row.achieved_gbps, row.achieved_tflops = fig["achieved_gbps"], fig["achieved_tflops"]
        row.roofline_fraction, row.bound = fig["roofline_fraction"], fig["bound"]
    if row.baseline_ms:
        row.baseline_roofline_fraction = figures(nbytes, flops, row.baseline_ms, ceil,
                                                 task.work.dtype)["roofline_fraction"]
