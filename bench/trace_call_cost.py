#!/usr/bin/env python3
"""What the device trace costs a timed call's *host* wall time (issue 30's overhead limit), part by part.

Session 15/16 on H200s: every timed call of the judge's took ~0.3-0.5 ms more wall time than under
e9f494d, and an evaluation with the trace off (GAUNTLET_DEVICE_TRACE=0) read 0.99x e9f494d's wall
time. bench/devtrace_cost.py measured what the trace costs a kernel's *device* time (nothing per
block); this measures the host side: the runner's timed loop, as kernel_runner.Runner.time runs it
(the input refill, the cold-L2 clock with its launch gate, the call, the digest read back; batches
of 25 with their batch markers and the forced flush), in a fresh child process per mode, the judge's
Reader draining the pipe in this process as the judge's does:

  off          no trace library (what e9f494d ran)
  shipped      the library as shipped: kernels, copies and memsets, its 10 ms flusher held off
               during each batch, the end marker after each call, a forced flush after each batch
  unheld       shipped, with the flusher asking through the batches too (as shipped until session 18)
  no-marker    shipped, without the end marker's launch after each call
  no-forced    shipped, without the forced flush after each batch (the flusher's period only)
  kernels      a variant of the library recording kernels only (no copy or memset records)
  no-flusher   a variant without the library's flusher thread

Per mode: the median over batches of the wall time per call, and the median device sample of the
call, and what the judge's end received (records, problems). Modes run in the order given, then
again in reverse, so an order effect shows.

    python3 bench/trace_call_cost.py [--batches 40] [--json out.json] [--modes off shipped ...]

Needs torch, triton, a C compiler and CUPTI (runner.evaluator.devtrace.build). GPU only.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MODES = ("off", "shipped", "unheld", "no-marker", "no-forced", "kernels", "no-flusher")
PER_BATCH = 25
# The variants' edits of the shipped source: each must match exactly once, or the bench stops.
VARIANTS = {
    "kernels": [("    if (r == CUPTI_SUCCESS)\n        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);\n", ""),
                ("    if (r == CUPTI_SUCCESS)\n        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);\n", "")],
    "no-flusher": [("if (pthread_create(&thread, NULL, flusher, NULL) == 0)", "if (0)")],
}


def child(mode: str, batches: int) -> None:
    import torch
    from runner.evaluator import devtrace, protocol
    from runner.evaluator.clock import GpuClock

    base = [torch.randn(8192, 3000, device="cuda")]            # cuda2cuda/softmax's rows8192-cols3000
    work = [a.clone() for a in base]
    scratch = [torch.empty(a.shape, device="cuda", dtype=torch.float32) for a in base]
    generators = [torch.Generator(device="cuda") for _ in base]
    clock = GpuClock("cold")
    if mode == "no-marker":
        clock.marking = False
    fn = lambda: torch.softmax(work[0], dim=-1)                 # noqa: E731
    weights = None
    walls, samples = [], []
    for b in range(batches + 2):                                # the first two: warm-up
        started = time.perf_counter()
        if mode != "unheld":
            devtrace.hold_in_runner(True)
        clock.mark_batch()
        for i in range(PER_BATCH):
            protocol.perturbed(base, protocol.repetition_seed(1000 + b, i), out=work, scratch=scratch,
                               generators=generators)
            sample, _gap, out = clock.once(fn)
            if weights is None:
                weights = protocol.digest_weights((out,), 7)
            protocol.digest((out,), weights)
            if b >= 2:
                samples.append(sample)
        clock.mark_batch()
        clock._sync()
        if mode != "no-forced":
            devtrace.flush_in_runner()
        devtrace.hold_in_runner(False)
        if b >= 2:
            walls.append((time.perf_counter() - started) * 1000.0 / PER_BATCH)
    print(json.dumps({"wall_ms_per_call": statistics.median(walls), "wall_ms_spread": [min(walls), max(walls)],
                      "sample_ms": statistics.median(samples), "marking": bool(getattr(clock, "marking", False)),
                      "gate": clock.gate is not None}), flush=True)
    devtrace.flush_in_runner()


def library_for(mode: str, cache: Path) -> Path | None:
    from runner.evaluator import devtrace
    if mode == "off":
        return None
    if mode not in VARIANTS:
        return devtrace.build(devtrace.cache_dir())
    text = devtrace.SOURCE.read_text()
    for old, new in VARIANTS[mode]:
        if text.count(old) != 1:
            raise SystemExit(f"variant {mode}: the shipped source no longer holds {old!r}")
        text = text.replace(old, new)
    source = cache / f"{mode}.c"
    source.write_text(text)
    out = cache / f"lib-{mode}.so"
    devtrace.compile_library(source, out, os.environ.get("CC", "cc"), *devtrace._cupti_dirs()[0])
    return out


def run_child(mode: str, batches: int, cache: Path) -> dict:
    from runner.evaluator import devtrace
    env = dict(os.environ)
    env.pop(devtrace.LIBRARY_ENV, None)
    env.pop(devtrace.FD_ENV, None)
    argv = [sys.executable, __file__, "--child", mode, "--batches", str(batches)]
    library = library_for(mode, cache)
    if library is None:
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        if out.returncode:
            raise SystemExit(f"{mode}: child failed: {out.stderr[-500:]}")
        return {"mode": mode, **json.loads(out.stdout.strip().splitlines()[-1]), "records": 0, "problems": []}
    reader = devtrace.Reader()
    env.update(devtrace.runner_env(library, reader.write_fd))
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, pass_fds=(reader.write_fd,))
    reader.child_started()
    reader.join(10)
    if proc.returncode:
        raise SystemExit(f"{mode}: child failed: {proc.stderr[-500:]}")
    return {"mode": mode, **json.loads(proc.stdout.strip().splitlines()[-1]),
            "records": sum(1 for op in reader.ops if op.device_work), "problems": reader.problems[:3]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.batches)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in [*args.modes, *reversed(args.modes)]:
            rows.append(run_child(mode, args.batches, Path(tmp)))
            r = rows[-1]
            print(f"{mode:11s} wall/call {r['wall_ms_per_call']:.3f} ms (batches {r['wall_ms_spread'][0]:.3f}-"
                  f"{r['wall_ms_spread'][1]:.3f}) sample {r['sample_ms'] * 1000:.1f} us marking={r['marking']} "
                  f"records={r['records']} problems={r['problems']}", flush=True)
    off = statistics.median(r["wall_ms_per_call"] for r in rows if r["mode"] == "off") if "off" in args.modes else None
    for mode in args.modes:
        walls = [r["wall_ms_per_call"] for r in rows if r["mode"] == mode]
        extra = f", {1000 * (statistics.mean(walls) - off):+.0f} us a call against off" if off else ""
        print(f"{mode:11s} mean wall/call {statistics.mean(walls):.3f} ms{extra}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
