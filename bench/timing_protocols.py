"""Self-speedup of each task's baseline timed against itself, with three timing protocols:

  gauntlet      runner/evaluator/timing.py: cold L2 per call, tight events + device-sync bound,
                alternating rounds, median;
  aka           AgentKernelArena's HIP/gpumode helper: 10 warm-ups, 100 back-to-back calls between
                one event pair, mean, no flush;
  kernelbench   KernelBench's cuda_event: per trial synchronize, 256 MB flush, events around one
                call, synchronize; 100 trials, mean.

A perfect protocol reports 1.0 for a kernel against itself; |speedup - 1| is its noise. Each task
is measured on its smallest and its largest seen or hidden config and on a tiny drawn `edge`
config (a launch-bound call), REPEATS times per protocol; the summary gives the median and p95 over all of them.

    python bench/timing_protocols.py [--tasks-root tasks] [--repeats 5] [--json out.json]

Needs a CUDA GPU. Every CUDA-capable task whose baseline needs no compiler (Triton kernels and PyTorch
references) is measured, and native ones too when nvcc is on PATH.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.evaluator import timing  # noqa: E402
from runner.evaluator.build import Kernel, device_arch, import_module  # noqa: E402
from runner.evaluator.harness import _clone, _seed, build_kernel, candidate_tree  # noqa: E402
from runner.configspace import draw  # noqa: E402
from runner.task import select  # noqa: E402


def gauntlet_ratio(torch, fn_a, fn_b, clock) -> float:
    t = timing.time_pair({"a": fn_a, "b": fn_b}, clock)
    return t["a"].median_ms / t["b"].median_ms


def aka_time(torch, fn) -> float:
    for _ in range(10):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(100):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 100


def kernelbench_time(torch, fn, flush) -> float:
    for _ in range(3):
        fn()
        torch.cuda.synchronize()
    times = []
    for _ in range(101):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush.fill_(1)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.fmean(times[1:])


def configs_of(task) -> list:
    """The task's seen and hidden configs with the fewest and the most elements (product of the
    integer parameters), and the first `edge` config drawn from its space (seed 0): a tiny,
    launch-bound call."""
    configs = sorted(task.configs("seen") + task.configs("unseen"),
                     key=lambda c: math.prod(v for v in c.params.values() if isinstance(v, int)))
    return configs[:1] + configs[1:][-1:] + draw(task, 1, seed=0)[:1]


def baseline_of(task, tmp: Path):
    if task.baseline_is_reference:
        return Kernel(name="baseline", python_fn=import_module(task.reference, f"ref_{task.id.replace('/', '_')}").reference)
    arch = None if task.language == "triton" else device_arch("cuda")
    kernel, _ = build_kernel(task, candidate_tree(task, None, tmp / task.id.replace("/", "_")), "cuda",
                             "baseline", arch)
    return kernel


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks-root", type=Path, default=Path(__file__).resolve().parent.parent / "tasks")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    import torch
    assert torch.cuda.is_available(), "needs a CUDA GPU"
    tasks = [t for t in select([], args.tasks_root) if "cuda" in t.platforms
             and (t.language == "triton" or t.baseline_is_reference or shutil.which("nvcc"))]
    clock = timing.GpuClock("cold")
    flush = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for task in tasks:
            try:
                kernel = baseline_of(task, Path(tmp))
            except Exception as exc:
                print(f"{task.id}: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
                continue
            ref = import_module(task.reference, f"refm_{task.id.replace('/', '_')}")
            for config in configs_of(task):
                gen = torch.Generator().manual_seed(_seed(config, 0))
                inputs = list(ref.make_inputs(dict(config.params), gen, "cuda"))
                expected = ref.reference(*_clone(inputs))
                state_a = kernel.prepare(inputs, expected)
                state_b = kernel.prepare(inputs, expected)
                fa = lambda: kernel.run(inputs, state_a)  # noqa: E731
                fb = lambda: kernel.run(inputs, state_b)  # noqa: E731
                for rep in range(args.repeats):
                    t0 = time.perf_counter()
                    g = gauntlet_ratio(torch, fa, fb, clock)
                    a = aka_time(torch, fa) / aka_time(torch, fb)
                    k = kernelbench_time(torch, fa, flush) / kernelbench_time(torch, fb, flush)
                    ms = kernelbench_time(torch, fa, flush)
                    rows.append({"task": task.id, "config": config.name, "repeat": rep, "kernel_ms": ms,
                                 "gauntlet": g, "aka": a, "kernelbench": k, "seconds": time.perf_counter() - t0})
                    print(json.dumps(rows[-1]), flush=True)
    summary = {}
    for method in ("gauntlet", "aka", "kernelbench"):
        dev = sorted(abs(r[method] - 1.0) * 100 for r in rows)
        if dev:
            summary[method] = {"median_pct": statistics.median(dev),
                               "p95_pct": dev[min(len(dev) - 1, int(round(0.95 * (len(dev) - 1))))],
                               "worst_pct": dev[-1]}
    per_task = {}
    for r in rows:
        per_task.setdefault(f"{r['task']} {r['config']}", []).append(r)
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cuda": torch.version.cuda, "empty_pair_ms": clock.empty_ms, "tail_ms": clock.tail_ms, "tail_limit_ms": clock.tail_limit_ms,
           "summary": summary,
           "per_task": {t: {m: statistics.median(abs(x[m] - 1) * 100 for x in rs) for m in ("gauntlet", "aka", "kernelbench")}
                        | {"kernel_ms": statistics.median(x["kernel_ms"] for x in rs)} for t, rs in per_task.items()},
           "rows": rows}
    try:
        import triton
        out["triton"] = triton.__version__
    except Exception:
        pass
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=2))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
