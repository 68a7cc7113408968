"""Gauntlet's kernel time against Nsight Compute's `gpu__time_duration.sum`, per kernel.

For each task (largest seen config) and each of its baseline and shipped solution:

  gauntlet  runner/evaluator/timing.py in the cold regime (the evaluator's default), median ms;
  ncu       the same call made CALLS times inside an NVTX range "timed" under
            `ncu --nvtx --nvtx-include timed/ --metrics gpu__time_duration.sum --cache-control all
            --clock-control none` (caches flushed before each kernel like the cold regime, clocks
            left as the evaluator sees them); per call the sum over its kernels, median over calls.

A call of several kernels (a PyTorch reference) differs by the launch gaps between its kernels,
which the events include and ncu does not: the comparison is meant for one-kernel calls.

    python bench/ncu_compare.py [--tasks T ...] [--calls 30] [--json out.json]

Needs a CUDA GPU, nvcc for native tasks and ncu on PATH (or /usr/local/cuda/bin/ncu).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from runner.evaluator import timing  # noqa: E402
from runner.evaluator.build import import_module  # noqa: E402
from runner.evaluator.harness import _clone, _seed, build_kernel, candidate_tree  # noqa: E402
from runner.task import select  # noqa: E402
from timing_protocols import baseline_of  # noqa: E402

DEFAULT_TASKS = ("cuda2cuda/softmax", "cuda2cuda/transpose", "triton2triton/softmax", "triton2triton/matmul",
                 "torch2triton/rmsnorm", "torch2cuda/rmsnorm")


def kernel_call(task, which: str, tmp: Path):
    """(zero-argument call, config name) for the task's baseline or shipped solution."""
    import torch
    if which == "baseline":
        kernel = baseline_of(task, tmp)
    else:
        arch = None if task.language == "triton" else f"sm_{''.join(map(str, torch.cuda.get_device_capability()))}"
        kernel, _ = build_kernel(task, candidate_tree(task, task.solution_dir, tmp / f"sol_{task.id.replace('/', '_')}"),
                                 "cuda", "solution", arch)
    ref = import_module(task.reference, f"ncu_ref_{task.id.replace('/', '_')}_{which}")
    config = task.configs("seen")[-1]
    inputs = list(ref.make_inputs(dict(config.params), torch.Generator().manual_seed(_seed(config, 0)), "cuda"))
    state = kernel.prepare(inputs, ref.reference(*_clone(inputs)))
    return (lambda: kernel.run(inputs, state)), config.name


EMPTY = "empty-kernel"    # a kernel that does nothing (torch.cuda._sleep(0)): the fixed costs alone


def target(task_id: str, which: str, calls: int, tasks_root: Path) -> None:
    """The profiled process: warm up, then CALLS synchronized calls inside the NVTX range."""
    import torch
    with tempfile.TemporaryDirectory() as tmp:
        if task_id == EMPTY:
            fn = lambda: torch.cuda._sleep(0)  # noqa: E731
        else:
            fn, _ = kernel_call(select([task_id], tasks_root)[0], which, Path(tmp))
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        for _ in range(calls):
            torch.cuda.nvtx.range_push("timed")
            fn()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()


def ncu_per_call(ncu: str, task_id: str, which: str, calls: int, tasks_root: Path) -> dict:
    cmd = [ncu, "--csv", "--print-units", "base", "--nvtx", "--nvtx-include", "timed/",
           "--metrics", "gpu__time_duration.sum", "--cache-control", "all", "--clock-control", "none",
           sys.executable, __file__, "--target", task_id, "--which", which, "--calls", str(calls),
           "--tasks-root", str(tasks_root)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    lines = proc.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return {"error": (proc.stdout + proc.stderr)[-600:]}
    rows = [r for r in csv.DictReader(io.StringIO("\n".join(lines[start:])))
            if r.get("Metric Name") == "gpu__time_duration.sum"]
    if not rows or len(rows) % calls:
        return {"error": f"{len(rows)} kernel rows for {calls} calls", "kernels": sorted({r['Kernel Name'] for r in rows})}
    per = len(rows) // calls
    ns = [float(r["Metric Value"].replace(",", "")) for r in rows]
    sums = [sum(ns[i * per:(i + 1) * per]) / 1e6 for i in range(calls)]
    return {"ncu_ms": statistics.median(sums), "kernels_per_call": per,
            "kernel_names": sorted({r["Kernel Name"][:60] for r in rows})}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", nargs="*", default=list(DEFAULT_TASKS))
    parser.add_argument("--tasks-root", type=Path, default=ROOT / "tasks")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--flush-mb", type=int, nargs="*", default=[],
                        help="also time with these flush sizes (MB), for comparison with the default")
    parser.add_argument("--target", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--which", default="baseline", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.target:
        target(args.target, args.which, args.calls, args.tasks_root)
        return 0
    import torch
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    flushes = {f"{mb}MB": mb << 20 for mb in args.flush_mb}
    clocks = {"default": timing.GpuClock("cold"), **{k: timing.GpuClock("cold", flush_bytes=b) for k, b in flushes.items()}}
    rows = []

    def emit(row):
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            args.json.write_text(json.dumps({"rows": rows}, indent=2))

    # The fixed costs: event pair with nothing between, one and two empty kernels, and ncu's view of one.
    spin = lambda: torch.cuda._sleep(0)  # noqa: E731
    for name, clock in clocks.items():
        t = timing.time_pair({"nothing": lambda: None, "one_empty": spin, "two_empty": lambda: (spin(), spin())}, clock)
        emit({"task": EMPTY, "flush": name, "calibrated_empty_ms": clock.empty_ms,
              **{f"{k}_ms": v.median_ms for k, v in t.items()}})
    emit({"task": EMPTY, **ncu_per_call(ncu, EMPTY, "baseline", args.calls, args.tasks_root)})
    with tempfile.TemporaryDirectory() as tmp:
        for task_id in args.tasks:
            task = select([task_id], args.tasks_root)[0]
            for which in ("baseline", "solution"):
                try:
                    fn, config = kernel_call(task, which, Path(tmp))
                except Exception as exc:
                    print(f"{task_id} {which}: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
                    continue
                row = {"task": task_id, "which": which, "config": config,
                       **ncu_per_call(ncu, task_id, which, args.calls, args.tasks_root)}
                for name, clock in clocks.items():     # before and after ncu's run would differ only by drift
                    row[f"gauntlet_ms_{name}"] = timing.time_pair({"k": fn}, clock)["k"].median_ms
                    row[f"empty_ms_{name}"] = clock.empty_ms
                row["gauntlet_ms"] = row["gauntlet_ms_default"]
                if "ncu_ms" in row:
                    row["diff_pct"] = 100.0 * (row["gauntlet_ms"] - row["ncu_ms"]) / row["ncu_ms"]
                emit(row)
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "ncu": subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1:],
           "flush_bytes": {k: c.buffer.numel() * 4 for k, c in clocks.items()}, "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
