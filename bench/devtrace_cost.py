#!/usr/bin/env python3
"""What the device trace costs a kernel (issue 30): one kernel's time with the CUPTI injection
library loaded and recording, against the same kernel without it, on one NVIDIA GPU.

The trace moved cuda2cuda/gelu's baseline (16,384 blocks of 256 threads) about 10 % and its
grid-stride oracle about 1 % (results/gpu-2026-11-28b.md). If CUPTI's kernel records cost per
block, a fixed amount of work split over more blocks reads slower under the trace; if they cost
per launch, the shift is a constant a call, largest on the smallest calls. This separates the two:
a Triton grid-stride kernel (y = 2x, float32) over N elements launched with G programs of 1024
elements, for two sizes of N and G from a few blocks a multiprocessor up to one block per 1024
elements, timed with CUDA events (median of REPS calls, each queued behind a 50 us sleep kernel so
the host's launch cost is not in the span; warm L2: the question is the trace's cost, not the
memory system's), in a child process with the trace on and in one with it off, in both orders.

It also reads whether CUPTI's flush period hands over a buffer that is not full: the traced child
stops before its explicit flush until the judge's end has counted what arrived on its own.

    python3 bench/devtrace_cost.py [--reps 200] [--json out.json]

Needs torch, triton, a C compiler and CUPTI (runner.evaluator.devtrace.build). Prints a table:
per (N, G), the median time off and on and their ratio, and how many kernel records the judge's
end of the pipe received in the traced child before and after its explicit flush (the trace was live).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SIZES = (1 << 20, 1 << 25)                     # 4 MiB (a few-us call) and 128 MiB of float32
GRIDS = (132, 528, 2112, 8448, 32768)          # 1-4 blocks an SM of an H100/H200 ... one a tile


def child(reps: int) -> None:
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def double(x, y, n, BLOCK: tl.constexpr):
        pid, programs = tl.program_id(0), tl.num_programs(0)
        for start in range(pid * BLOCK, n, programs * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(y + offs, tl.load(x + offs, mask=mask) * 2.0, mask=mask)

    rows = []
    for n in SIZES:
        x = torch.randn(n, device="cuda")
        y = torch.empty_like(x)
        for grid in GRIDS:
            grid = min(grid, triton.cdiv(n, 1024))
            for _ in range(10):
                double[(grid,)](x, y, n, BLOCK=1024)
            torch.cuda.synchronize()
            times = []
            for _ in range(reps):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda._sleep(100_000)       # the launches below queue behind it
                a.record()
                double[(grid,)](x, y, n, BLOCK=1024)
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b) * 1e3)
            times.sort()
            rows.append({"n": n, "grid": grid, "median_us": times[len(times) // 2]})
    print(json.dumps(rows), flush=True)
    from runner.evaluator import devtrace
    if devtrace.active_in_runner():
        sys.stdin.readline()                 # the parent has counted what arrived without a flush
        devtrace.flush_in_runner()


def run_child(reps: int, traced: bool) -> tuple[list[dict], int]:
    from runner.evaluator import devtrace
    env = dict(os.environ)
    argv = [sys.executable, __file__, "--child", "--reps", str(reps)]
    if not traced:
        env.pop(devtrace.LIBRARY_ENV, None)
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1]), 0
    library = devtrace.build(devtrace.cache_dir())
    reader = devtrace.Reader()
    env.update(devtrace.runner_env(library, reader.write_fd))
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            pass_fds=(reader.write_fd,))
    reader.child_started()
    rows = json.loads(proc.stdout.readline())
    time.sleep(0.5)                          # 100 flush periods
    unflushed = sum(1 for op in reader.ops if op.kind == "kernel")
    proc.stdin.write("flush\n")
    proc.stdin.close()
    proc.wait()
    reader.join(10)
    if proc.returncode:
        raise SystemExit(f"traced child failed ({proc.returncode})")
    kernels = sum(1 for op in reader.ops if op.kind == "kernel")
    hello = sum(1 for op in reader.ops if op.kind == "hello")
    print(f"traced child: hello records {hello}, kernel records {unflushed} before its flush, {kernels} after; "
          f"problems {reader.problems[:3]}")
    return rows, kernels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.reps)
    runs = []                                # off, on, on, off: the order's own effect shows
    for traced in (False, True, True, False):
        rows, kernels = run_child(args.reps, traced)
        runs.append((traced, rows, kernels))
    kernels = max(k for _, _, k in runs)
    print(f"{'elements':>10} {'grid':>6} {'off us':>15} {'on us':>15} {'on/off':>7}")
    table = []
    for i, row in enumerate(runs[0][1]):
        off = [r[i]["median_us"] for t, r, _ in runs if not t]
        on = [r[i]["median_us"] for t, r, _ in runs if t]
        ratio = statistics.mean(on) / statistics.mean(off)
        table.append({"n": row["n"], "grid": row["grid"], "median_us_off": off, "median_us_on": on, "ratio": ratio})
        print(f"{row['n']:>10} {row['grid']:>6} {off[0]:7.2f} {off[1]:7.2f} {on[0]:7.2f} {on[1]:7.2f} {ratio:7.3f}")
    if args.json:
        args.json.write_text(json.dumps({"kernel_records": kernels, "rows": table}, indent=1))


if __name__ == "__main__":
    main()
