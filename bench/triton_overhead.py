"""Where does a Triton task's time go on a GPU? Baseline vs reference solution, per config:
CPU launch cost per call, warm back-to-back time, and the evaluator's cold single-call time
(runner/evaluator/timing.py), the last also with the guard's Triton launch counter installed.

Usage (GPU host, repo root): python3 bench/triton_overhead.py [TASK_ID ...]
"""
from __future__ import annotations

import statistics
import sys
import time
import tomllib
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from runner.evaluator import timing  # noqa: E402
from runner.evaluator.build import import_module  # noqa: E402
from runner.evaluator.guard import LaunchCounter  # noqa: E402

DEFAULT = ["triton2triton/matmul", "triton2triton/softmax", "torch2triton/silu_mul", "torch2triton/rmsnorm"]


def configs(task: Path):
    for split, rel in (("seen", "configs.toml"), ("unseen", "hidden/configs.toml")):
        for c in tomllib.loads((task / rel).read_text())["config"]:
            yield split, c.pop("name"), c


def launch_us(fn, n=200):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def warm_ms(fn, n=100):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(n):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / n


def cold_ms(clock, fn, n=100):
    return statistics.median(clock.once(fn)[0] for _ in range(n))


def kernels(tid: str, tag: str):
    """(task dir, reference module, baseline fn, solution fn), imported afresh under `tag`."""
    task = REPO / "tasks" / tid
    key = f"{tag}_{tid.replace('/', '_')}"
    ref = import_module(task / "reference.py", f"ref_{key}")
    sol = import_module(task / "solution" / "kernel.py", f"sol_{key}").forward
    base = (import_module(task / "kernel.py", f"base_{key}").forward
            if tid.startswith("triton2triton") else ref.reference)
    return task, ref, base, sol


def main(ids):
    clock = timing.make_clock("cuda", "cold")
    rows = []
    for tid in ids:
        task, ref, base, sol = kernels(tid, "first")
        for split, name, params in configs(task):
            args = ref.make_inputs(params, torch.Generator().manual_seed(0), "cuda")
            row = [tid, split, name]
            for fn in (lambda: base(*args), lambda: sol(*args)):
                for _ in range(5):
                    fn()
                row += [launch_us(fn), warm_ms(fn), cold_ms(clock, fn)]
            rows.append(row)
    LaunchCounter.install()
    # second pass with the launch counter: cold times only
    i = 0
    for tid in ids:
        task, ref, base, sol = kernels(tid, "second")
        for split, name, params in configs(task):
            args = ref.make_inputs(params, torch.Generator().manual_seed(0), "cuda")
            for fn in (lambda: base(*args), lambda: sol(*args)):
                for _ in range(5):
                    fn()
            rows[i] += [cold_ms(clock, lambda: base(*args)), cold_ms(clock, lambda: sol(*args))]
            i += 1
    print(f"{'task':24s} {'split':6s} {'config':18s} | base: launch_us warm_ms cold_ms | sol: launch_us warm_ms cold_ms"
          f" | speedup warm cold | counted: base sol speedup")
    for r in rows:
        print(f"{r[0]:24s} {r[1]:6s} {r[2]:18s} | {r[3]:6.1f} {r[4]:.4f} {r[5]:.4f} | {r[6]:6.1f} {r[7]:.4f} {r[8]:.4f}"
              f" | {r[4] / r[7]:.2f} {r[5] / r[8]:.2f} | {r[9]:.4f} {r[10]:.4f} {r[9] / r[10]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
