"""Is a memory-bound kernel's per-process level where its buffers sit in physical memory? (issue 10)

On the H100 the judge's noop on cuda2cuda/rmsnorm read 2.2 % apart on rows8192-cols4096 (128 MB in,
128 MB out, 130 us) while a config of the same kernel at 36 us read 0.8 % and the 22-60 ms ones
under 0.2 % (results/h100-2026-11-26g.md): a process effect the one-figure process offset does
not model. The runner gives every timed batch new buffers (kernel_runner._move_buffers: a spacer of
random size, then the inputs cloned), but through PyTorch's caching allocator, which hands out the
segments it already holds: the physical pages under them were fixed when the process first made
them. This probe tells whether fresh segments per batch turn a per-process level into noise that
the batches average out.

Each child process compiles nothing (the parent compiles the task's kernel.cu once, as the runner
would: runner.evaluator.build), times it with the judge's clock (timing.GpuClock: cold L2, launch
gate) in BATCHES batches of REPS repetitions (the judge's shape for this config: 35 x 16), with the
buffers renewed before every batch by SCHEME:

    fixed     the same inputs and outputs throughout
    virtual   as the runner does now: a spacer of random size (512 B units, up to 32 MB), the input
              cloned, new outputs (all from the allocator's cache)
    physical  every buffer dropped and the allocator's cache handed back to the driver
              (torch.cuda.empty_cache), a hold of random size (2 MB units, up to 1 GB) made and
              kept through the batch, then new inputs and outputs: new segments

and prints its median per config. The parent runs PROCS processes per scheme, interleaved, and
prints each scheme's per-process medians and their spread (what a noop reads is the difference of
two processes' medians).

    python3 bench/archive/placement_probe.py [--procs 8] [--schemes fixed virtual physical]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "tasks" / "cuda2cuda" / "rmsnorm"
CONFIGS = {"rows8192-cols4096": (8192, 4096), "rows200003-cols129": (200003, 129), "rows6007-cols1531": (6007, 1531)}
BATCHES, REPS = 35, 16


def child(library: str, scheme: str) -> dict:
    sys.path.insert(0, str(ROOT))
    import torch
    from runner.evaluator.build import load_native
    from runner.evaluator.timing import GpuClock
    kernel = load_native(Path(library), "launch", "probe")
    clock = GpuClock("cold")
    pick = random.Random()
    gen = torch.Generator().manual_seed(0)
    result = {}
    for name, (rows, cols) in CONFIGS.items():
        base = [torch.randn(rows, cols, generator=gen).cuda(), torch.randn(cols, generator=gen).cuda()]
        spec = [torch.empty(rows, cols, device="meta")]
        work, hold = [t.clone() for t in base], None
        state = kernel.prepare([*work, rows, cols, 1e-6], spec)
        samples = []
        for _ in range(BATCHES):
            if scheme == "virtual":
                spacer = torch.empty(pick.randrange(1, 1 << 16) * 512, dtype=torch.uint8, device="cuda")
                work = [t.clone() for t in work]
                state = kernel.prepare([*work, rows, cols, 1e-6], spec)
                del spacer
            elif scheme == "physical":
                work = state = hold = None
                torch.cuda.empty_cache()
                hold = torch.empty(pick.randrange(1, 513) << 21, dtype=torch.uint8, device="cuda")
                work = [t.clone() for t in base]
                state = kernel.prepare([*work, rows, cols, 1e-6], spec)
            args = [*work, rows, cols, 1e-6]
            kernel.run(args, state)          # untimed: whatever the renewal left pending settles
            torch.cuda.synchronize()
            for _ in range(REPS):
                sample, _, _ = clock.once(lambda: kernel.run(args, state))
                samples.append(sample)
        result[name] = statistics.median(samples) * 1000.0     # us
        del base, work, state, hold
        torch.cuda.empty_cache()
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--schemes", nargs="+", default=["fixed", "virtual", "physical"])
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "SCHEME"))
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    sys.path.insert(0, str(ROOT))
    from runner.evaluator.build import compile_native
    library, _ = compile_native("cuda", TASK, "kernel.cu", "sm_90", out_dir=Path("/tmp/placement_probe"))
    found = {s: [] for s in args.schemes}
    for i in range(args.procs):
        for scheme in args.schemes:
            proc = subprocess.run([sys.executable, __file__, "--child", str(library), scheme],
                                  capture_output=True, text=True, timeout=120)
            if proc.returncode != 0:
                print(f"{scheme} process {i} failed: {proc.stderr[-800:]}", flush=True)
                continue
            found[scheme].append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(f"{scheme:8s} {i}: " + "  ".join(f"{k} {v:.3f}" for k, v in found[scheme][-1].items()), flush=True)
    summary = {}
    for scheme, runs in found.items():
        for config in CONFIGS:
            levels = [r[config] for r in runs]
            if len(levels) < 2:
                continue
            mid = statistics.median(levels)
            # what a noop between two of these processes would read: |a/b - 1| over every pair
            pairs = [abs(a / b - 1) for j, a in enumerate(levels) for b in levels[j + 1:]]
            summary[f"{scheme} {config}"] = {
                "median_us": round(mid, 3), "spread_pct": round((max(levels) - min(levels)) / mid * 100, 2),
                "pair_abs_dev_median_pct": round(statistics.median(pairs) * 100, 3),
                "pair_abs_dev_max_pct": round(max(pairs) * 100, 3)}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
